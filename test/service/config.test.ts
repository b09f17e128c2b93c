/** Configuration from the environment and `.env` (spec §5: the key stays out of code and output). */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option, Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inspect } from "node:util"
import { Emulator } from "../../src/emulator/emulator.ts"
import { TextService } from "../../src/service/client.ts"
import { envProvider, ServiceConfig, settingsFromEnv } from "../../src/service/config.ts"

describe("service configuration", () => {
  it.effect("reads .env, with the environment taking precedence", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "svc-env-"))
      writeFileSync(
        join(dir, ".env"),
        "SVC_BASE_URL=http://from-file:1\nSVC_API_KEY=file-key-123\nSVC_TIMEOUT_MS=1500\n"
      )
      const before = process.env.SVC_BASE_URL
      process.env.SVC_BASE_URL = "http://from-env:2"
      try {
        const s = yield* settingsFromEnv.pipe(Effect.withConfigProvider(envProvider(dir)))
        expect(s.baseUrl).toEqual(Option.some("http://from-env:2"))
        expect(Option.map(s.apiKey, Redacted.value)).toEqual(Option.some("file-key-123"))
        expect(Duration.toMillis(s.timeout)).toBe(1500)
      } finally {
        if (before === undefined) delete process.env.SVC_BASE_URL
        else process.env.SVC_BASE_URL = before
      }
    })
  )

  it("never prints the key", () => {
    const s = ServiceConfig.make({ baseUrl: "http://x/", apiKey: "sk-very-secret" })
    expect(s.baseUrl).toBe("http://x")
    for (const shown of [String(s.apiKey), JSON.stringify(s), inspect(s, { depth: 5 })])
      expect(shown).not.toContain("sk-very-secret")
  })
})

describe("TextService.layerFromEnv", () => {
  it.scopedLive("reaches the service named by SVC_BASE_URL with SVC_API_KEY", () =>
    Effect.gen(function* () {
      const emu = yield* Emulator.make({ apiKey: "env-key-42" })
      const saved = { url: process.env.SVC_BASE_URL, key: process.env.SVC_API_KEY }
      process.env.SVC_BASE_URL = emu.url
      process.env.SVC_API_KEY = "env-key-42"
      try {
        const t = yield* Effect.gen(function* () {
          const svc = yield* TextService
          return yield* svc.translate({ text: "ok", source_lang: "en", target_lang: "ja" })
        }).pipe(Effect.provide(TextService.layerFromEnv))
        expect(t.translated_text.length).toBeGreaterThan(0)
      } finally {
        for (const [k, v] of [
          ["SVC_BASE_URL", saved.url],
          ["SVC_API_KEY", saved.key]
        ] as const) {
          if (v === undefined) delete process.env[k]
          else process.env[k] = v
        }
      }
    })
  )
})
