/** `svc-batch retry`: the failed records of a finished run asked again, outputs rewritten. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

describe("svc-batch retry", () => {
  it("asks only the failed records of a finished run again and rewrites its output and rejects", async () => {
    const faulty = await emulatorFor({ error500Rate: 0.25, faultSeed: 7 })
    const port = Number(new URL(faulty.url).port)
    const env = { SVC_BASE_URL: faulty.url, SVC_API_KEY: KEY }
    const dir = tempDir()
    const input = writeCorpus(dir, 200)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: flaky\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { maxAttempts: 1 }\nreport: { enabled: false }\n`
    )
    const first = spawnCli(["run", job], env)
    expect(await first.exited).toBe(1)
    await faulty.close()
    const failed = readJsonl(join(dir, "out", "r.rejects.jsonl")).length
    expect(failed).toBeGreaterThan(10)
    expect(readJsonl(join(dir, "out", "r.jsonl"))).toHaveLength(200 - failed)

    // The same service, healthy again.
    const log = requestLog()
    const healthy = await emulatorFor({ port, onRequest: log.onRequest })
    try {
      const retry = spawnCli(["retry", job], env)
      expect(await retry.exited).toBe(0)
      expect(retry.out()).toContain("run 1 (resumed) finished: 200 done, 0 failed")
      // It calls itself retry, naming the run it reopens.
      expect(retry.out()).toMatch(/^svc-batch retry \(run 1\) /)
      expect(log.entries).toHaveLength(failed)
      expect(readJsonl(join(dir, "out", "r.jsonl")).map((r) => r.id)).toEqual(
        Array.from({ length: 200 }, (_, i) => `r${i}`)
      )
      expect(readFileSync(join(dir, "out", "r.rejects.jsonl"), "utf8")).toBe("")
      // The run's statistics are its totals over both invocations.
      const runs = spawnCli(["runs", job, "--json"], env)
      expect(await runs.exited).toBe(0)
      expect(JSON.parse(runs.out().trim())).toMatchObject({
        id: 1,
        state: "finished",
        done: 200,
        failed: 0,
        requests: 200 + failed
      })
    } finally {
      await healthy.close()
    }
  }, 60_000)

  it("refuses a run whose input has changed since", async () => {
    const emu = await emulatorFor()
    try {
      const env = { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY }
      const dir = tempDir()
      const input = writeCorpus(dir, 20)
      const job = join(dir, "job.yaml")
      writeFileSync(
        job,
        `name: changed\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
      )
      expect(await spawnCli(["run", job], env).exited).toBe(0)
      writeCorpus(dir, 21)
      const retry = spawnCli(["retry", job, "--run", "1"], env)
      expect(await retry.exited).toBe(2)
      expect(retry.err()).toContain("cannot retry run 1: the input has changed since that run; run the job instead")
    } finally {
      await emu.close()
    }
  }, 30_000)
})
