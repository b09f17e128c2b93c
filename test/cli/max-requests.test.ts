/** `run --max-requests N`: stops after N requests, resumable; the rerun completes with every record once. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

describe("run --max-requests", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ onRequest: log.onRequest, latencyMs: 5 })
  })
  afterAll(() => emu.close())
  const env = () => ({ SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })

  it("stops at the budget (exit 6, nothing over it sent), then the rerun finishes: every record once, no request repeated", async () => {
    log.entries.length = 0
    const dir = tempDir()
    const input = writeCorpus(dir, 400)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: budget\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { concurrency: 8, records: 32 }\nreport: { enabled: false }\n`
    )
    const t0 = Date.now()
    const first = spawnCli(["run", job, "--max-requests", "100", "--grace-ms", "60000"], env())
    expect(await first.exited).toBe(6)
    // Stopped once the last requests were answered, not after the 60 s grace period.
    expect(Date.now() - t0).toBeLessThan(30_000)
    expect(first.out()).toContain(
      "the budget of 100 requests (--max-requests) is spent; run the same command again to continue run 1"
    )
    expect(log.entries.length).toBe(100)

    const second = spawnCli(["run", job], env())
    expect(await second.exited).toBe(0)
    expect(second.out()).toContain("(resumed) finished: 400 done, 0 failed")
    expect(log.entries.length).toBe(400)
    expect(new Set(log.entries.map((e) => e.bodyHash)).size).toBe(400)
    expect(readJsonl(join(dir, "out", "r.jsonl")).map((r) => r.id)).toEqual(
      Array.from({ length: 400 }, (_, i) => `r${i}`)
    )
  }, 60_000)

  it("refuses a budget of 0 (exit 2, naming the flag)", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 5)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: b0\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input} }\noutput: { path: out/r.jsonl }\n`
    )
    const run = spawnCli(["run", job, "--max-requests", "0"], env())
    expect(await run.exited).toBe(2)
    expect(run.err()).toContain("--max-requests: expected a whole number of 1 or more, got 0")
  }, 30_000)

  it("--dry-run prints the plan and sends nothing", async () => {
    log.entries.length = 0
    const dir = tempDir()
    const input = writeCorpus(dir, 20)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: dry\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input} }\noutput: { path: out/r.jsonl }\n`
    )
    const run = spawnCli(["run", job, "--dry-run"], env())
    expect(await run.exited).toBe(0)
    expect(run.out()).toMatch(/^moderate\s+chat\s+svc3-guard\s+20\s+0\s+20\s/m)
    expect(log.entries).toHaveLength(0)
  }, 30_000)
})
