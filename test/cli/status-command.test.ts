/** `svc-batch status` and `runs`: read from the ledger while a run goes on in another process. */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { statusLines, viewOf } from "../../src/cli/run-view.ts"
import { emptyStats } from "../../src/engine/run-stats.ts"
import { tempDir } from "../engine/run-helpers.ts"
import { untilDone } from "./ledger-probe.ts"
import { spawnCli } from "./spawn-cli.ts"
import { moderationJob } from "./moderation-job.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("svc-batch status", () => {
  it("reports a run in progress in another process (running, rate, ETA), then its end; runs lists it", async () => {
    // 20 records/s: the run takes ~15 s, long enough to look at while it goes.
    const { job, ledger } = moderationJob(
      "watched",
      300,
      `limits: { rpm: { svc3-guard: 1200 } }\nreport: { enabled: false }\n`,
      "out/result.jsonl"
    )
    const run = spawnCli(["run", job], env)
    await untilDone(ledger, 40, 100)
    await new Promise((r) => setTimeout(r, 2500)) // a heartbeat has saved the statistics

    const status = spawnCli(["status", job, "--json"], env)
    expect(await status.exited).toBe(0)
    const view = JSON.parse(status.out()) as {
      state: string
      done: number
      pending: number
      rate: number
      etaSeconds: number
      service: string
    }
    expect(view.state).toBe("running")
    expect(view.done).toBeGreaterThan(0)
    expect(view.pending).toBeGreaterThan(0)
    expect(view.rate).toBeGreaterThan(5)
    expect(view.etaSeconds).toBeGreaterThan(0)
    expect(view.service).toBe("emulator")

    run.child.kill("SIGINT")
    expect(await run.exited).toBe(130)
    const after = spawnCli(["status", job], env)
    expect(await after.exited).toBe(0)
    expect(after.out()).toMatch(
      /^run 1 of watched: interrupted\n  records  \d+\/300 \(\d+ done, 0 failed, \d+ pending\)/
    )
    expect(after.out()).toContain("EMULATOR")

    const runs = spawnCli(["runs", job], env)
    expect(await runs.exited).toBe(0)
    const lines = runs.out().trim().split("\n")
    expect(lines[0]).toMatch(/^run\s+state\s+started \(UTC\)\s+took\s+done\s+failed\s+requests\s+cache hits\s+service$/)
    expect(lines[1]).toMatch(/^1\s+interrupted\s+/)
  }, 60_000)

  it("a run killed with SIGKILL is stale at once (its process is gone) in status and runs, and --watch ends with a final line", async () => {
    // 1 record/s: the run would take 5 minutes; it saves its statistics every 2 s until killed.
    const { job, ledger } = moderationJob(
      "killed",
      300,
      `limits: { rpm: { svc3-guard: 60 } }\nreport: { enabled: false }\n`,
      "out/result.jsonl"
    )
    const run = spawnCli(["run", job], env)
    await untilDone(ledger, 1, 100)
    const watch = spawnCli(["status", job, "--watch", "--interval", "1"], env)
    await watch.waitFor(/^run 1 of killed: running$/m)

    run.child.kill("SIGKILL")
    expect(await run.exited).toBe(-1)
    const killedAt = Date.now()
    // The ledger still says running and its last update is fresh: the lock tells the process is gone.
    expect(await watch.exited).toBe(0)
    expect(Date.now() - killedAt).toBeLessThan(12_000) // not the 15 s of silence (its cause says so too)
    expect(watch.out()).toMatch(/\nwatch ended: run 1 is no longer running \(stale: its process \d+ is gone\)\n$/)

    // The cause shows it is the lock that told, not 15 s of silence ("no update for …").
    const status = spawnCli(["status", job, "--json"], env)
    const text = spawnCli(["status", job], env)
    const runs = spawnCli(["runs", job], env)
    expect(await status.exited).toBe(0)
    expect(JSON.parse(status.out())).toMatchObject({
      state: "stale",
      staleCause: `its process ${run.child.pid} is gone`,
      etaSeconds: null
    })
    expect(await text.exited).toBe(0)
    expect(text.out()).toContain(
      `run 1 of killed: stale (interrupted: its process ${run.child.pid} is gone; to resume, run the same command again, e.g. svc-batch run ${job})`
    )
    expect(await runs.exited).toBe(0)
    expect(runs.out().trim().split("\n")[1]).toMatch(/^1\s+stale\s+/)
  }, 60_000)

  it("says the job has not run yet (exit 2)", async () => {
    const dir = tempDir()
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: never\npipeline: moderation\nfields: { text: text }\ninput: { path: in.jsonl }\noutput: { path: out/r.jsonl }\n"
    )
    const status = spawnCli(["status", job], env)
    expect(await status.exited).toBe(2)
    expect(status.err()).toContain("the job has not run yet")
  }, 30_000)
})

describe("run view", () => {
  const run = (updatedAgoMs: number) => ({
    id: 3,
    job: "j",
    fingerprint: "f",
    status: "running" as const,
    startedAt: 1_000_000,
    finishedAt: null,
    service: "emulator",
    updatedAt: 2_000_000 - updatedAgoMs,
    stats: { ...emptyStats, total: 100, done: 40, failed: 2, skipped: 10, since: 1_990_000 - updatedAgoMs }
  })
  it("a running run that saves its statistics is running, with this invocation's rate and an ETA", () => {
    const v = viewOf(run(1000), 2_000_000)
    expect(v).toMatchObject({ state: "running", pending: 58, rate: 3.2, etaSeconds: 19 })
  })
  it("a running run that stopped saving them is stale (its process is gone)", () => {
    expect(viewOf(run(60_000), 2_000_000)).toMatchObject({
      state: "stale",
      staleCause: "no update for 1m00s",
      etaSeconds: null
    })
  })
  it("a running run whose process the lock says is gone is stale at once, however fresh its statistics", () => {
    expect(viewOf(run(1000), 2_000_000, "its process 42 is gone")).toMatchObject({
      state: "stale",
      staleCause: "its process 42 is gone",
      etaSeconds: null
    })
    expect(statusLines(viewOf(run(1000), 2_000_000, "its process 42 is gone"), "j.yaml")[0]).toBe(
      "run 3 of j: stale (interrupted: its process 42 is gone; to resume, run the same command again, e.g. svc-batch run j.yaml)"
    )
  })
  it("an ended run stays what the ledger says, whatever the lock", () => {
    expect(viewOf({ ...run(1000), status: "interrupted" }, 2_000_000, "no process holds the job's lock")).toMatchObject(
      { state: "interrupted", staleCause: null }
    )
  })
})
