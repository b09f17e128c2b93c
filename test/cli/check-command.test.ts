/** `svc-batch check`: one request per endpoint, each outcome named; exit 0 only when all pass. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

describe("svc-batch check", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ onRequest: log.onRequest })
  })
  afterAll(() => emu.close())

  it("every endpoint ok against a working service: exit 0, one request each", async () => {
    log.entries.length = 0
    const check = spawnCli(["check"], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    expect(await check.exited).toBe(0)
    expect(check.out()).toMatch(/service at http:\/\/127\.0\.0\.1:\d+/)
    expect(check.out().match(/^ {2}ok {4}/gm)).toHaveLength(5)
    expect(check.out()).toContain("all 5 passed")
    expect(log.entries.map((e) => `${e.path} ${e.model ?? ""}`).sort()).toEqual([
      "/v1/chat/completions svc3-guard",
      "/v1/chat/completions svc3-mini",
      "/v1/embeddings svc3-embedding",
      "/v1/rerank svc3-rerank",
      "/v1/translate translate"
    ])
  }, 30_000)

  it("a refused key: 401 on every probe, exit 5, and the key is not printed", async () => {
    const wrong = "sk-wrong-key-1234567890"
    const check = spawnCli(["check", "--json"], { SVC_BASE_URL: emu.url, SVC_API_KEY: wrong })
    expect(await check.exited).toBe(5)
    const results = check
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { ok: boolean; outcome: string })
    expect(results).toHaveLength(5)
    for (const r of results) expect(r).toMatchObject({ ok: false, outcome: "401 key refused" })
    expect(check.out() + check.err()).not.toContain(wrong)
  }, 30_000)

  it("a base URL ending in /v1: 404, named as a wrong URL with the fix", async () => {
    const check = spawnCli(["check"], { SVC_BASE_URL: `${emu.url}/v1`, SVC_API_KEY: KEY })
    expect(await check.exited).toBe(5)
    expect(check.out()).toContain(
      "404 wrong URL: the endpoint does not exist at SVC_BASE_URL: give the base URL without /v1"
    )
  }, 30_000)

  it("with a job: only the endpoints and models its stages use", async () => {
    log.entries.length = 0
    const dir = tempDir()
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: j\ninput: { path: in.jsonl }\noutput: { path: out.jsonl }\nstages:\n  - moderate: { fields: [t] }\n  - embed: { field: t }\n"
    )
    const check = spawnCli(["check", job], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    expect(await check.exited).toBe(0)
    expect(log.entries.map((e) => e.model).sort()).toEqual(["svc3-embedding", "svc3-guard"])
  }, 30_000)
})
