/** Ctrl-C behind a rate limit: nothing new is sent after it, and the run ends without waiting out its grace. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { spawnCli } from "./spawn-cli.ts"
import { moderationJob } from "./moderation-job.ts"

describe("stop", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ onRequest: log.onRequest, latencyMs: 100 })
  })
  afterAll(() => emu.close())

  it("SIGINT at 1,200 requests/min with 64 records waiting: at most the requests in flight are answered after it", async () => {
    const { job } = moderationJob(
      "stopping",
      400,
      `limits: { rpm: { svc3-guard: 1200 }, concurrency: 4, records: 64 }\n`
    )
    const run = spawnCli(["run", job, "--grace-ms", "60000"], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    while (log.entries.length < 20) await new Promise((r) => setTimeout(r, 20))
    const atSignal = log.entries.length
    const t0 = Date.now()
    run.child.kill("SIGINT")
    expect(await run.exited).toBe(130)
    expect(Date.now() - t0).toBeLessThan(30_000) // not the 60 s grace
    await new Promise((r) => setTimeout(r, 300))
    expect(log.entries.length - atSignal).toBeLessThanOrEqual(4 + 1) // in flight (concurrency 4), one racing the signal
  }, 30_000)
})
