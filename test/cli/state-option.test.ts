/**
 * `--state FILE` on every command that reads or writes the ledger: a run made with `--state` can be
 * inspected (status, runs), reported, retried and collected (gc) with the same flag.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("--state on the ledger's commands", () => {
  it("status, runs, report, retry and gc read (and write) the ledger --state names; none touches the default one", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 40)
    const job = join(dir, "job.yaml")
    const jobText = (emulator: string) =>
      `name: elsewhere\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { maxAttempts: 1 }\n${emulator}`
    // The first run meets server errors (one attempt each): some records fail, for retry to ask again.
    writeFileSync(job, jobText("emulator: { error500Rate: 0.3, faultSeed: 7 }\n"))
    const state = join(dir, "kept", "ledger.sqlite")
    const defaultLedger = join(dir, ".svc-batch", "elsewhere.ledger.sqlite")
    const run = spawnCli(["run", job, "--state", state], env)
    expect(await run.exited).toBe(1)
    const failed = readJsonl(join(dir, "out", "r.rejects.jsonl")).length
    expect(failed).toBeGreaterThan(0)

    const status = spawnCli(["status", job, "--state", state, "--json"], env)
    const runs = spawnCli(["runs", job, "--state", state, "--json"], env)
    const report = spawnCli(["report", job, "--state", state], env)
    expect(await Promise.all([status.exited, runs.exited, report.exited])).toEqual([0, 0, 0])
    expect(JSON.parse(status.out())).toMatchObject({ id: 1, state: "finished", failed })
    expect(JSON.parse(runs.out().trim())).toMatchObject({ id: 1, state: "finished", failed })
    expect(report.out()).toContain("svc-batch report elsewhere: run 1 (finished)")
    expect(JSON.parse(readFileSync(join(dir, "out", "r.report.json"), "utf8"))).toMatchObject({ runId: 1 })

    // The service healthy again: retry asks the failed records of the run in that ledger.
    writeFileSync(job, jobText(""))
    const retry = spawnCli(["retry", job, "--state", state], env)
    expect(await retry.exited).toBe(0)
    expect(retry.out()).toContain("run 1 (resumed) finished: 40 done, 0 failed")
    expect(retry.out()).toContain(`ledger  ${state}`)

    const gc = spawnCli(["gc", job, "--state", state, "--json"], env)
    expect(await gc.exited).toBe(0)
    expect(JSON.parse(gc.out())).toMatchObject({ runs: [], records: 0 })

    expect(existsSync(defaultLedger)).toBe(false)
    // Without --state the commands look at the default place, where no run was made.
    const without = spawnCli(["status", job], env)
    expect(await without.exited).toBe(2)
    expect(without.err()).toContain(`no ledger at ${defaultLedger}`)
  }, 90_000)
})
