/** Configuration from the environment and `.env` (spec §5: the key stays out of code and output). */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Option, Redacted } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inspect } from "node:util"
import { envProvider, ServiceConfig, settingsFromEnv } from "../../src/service/config.ts"

describe("service configuration", () => {
  it.effect("reads .env, with the environment taking precedence", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "svc-env-"))
      writeFileSync(join(dir, ".env"), "SVC_BASE_URL=http://from-file:1\nSVC_API_KEY=file-key-123\nSVC_TIMEOUT_MS=1500\n")
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
    for (const shown of [String(s.apiKey), JSON.stringify(s), inspect(s, { depth: 5 })]) expect(shown).not.toContain("sk-very-secret")
  })
})
