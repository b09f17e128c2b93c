/**
 * A run whose records retention removed (the default `retention.runs: 2`, after the third run) is
 * said to be so by `report --run 1`, `runs` and `status`, with the counts the run saved — never as
 * a run of 0 records.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { moderationJob } from "./moderation-job.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("a run whose records retention removed", () => {
  let job = ""
  let dir = ""
  beforeAll(async () => {
    ;({ job, dir } = moderationJob("kept", 25, ""))
    for (let i = 0; i < 3; i++) expect(await spawnCli(["run", job], env).exited).toBe(0)
  }, 120_000)

  it("report --run 1 says the records were removed and gives the run's saved counts, not 0", async () => {
    const report = spawnCli(["report", job, "--run", "1"], env)
    expect(await report.exited).toBe(0)
    expect(report.out()).toContain("run 1's records were removed by retention")
    const json = JSON.parse(readFileSync(join(dir, "out", "r.run-1.report.json"), "utf8")) as {
      recordsRemoved?: boolean
      records: { total: number; done: number }
    }
    expect(json.recordsRemoved).toBe(true)
    expect(json.records).toMatchObject({ total: 25, done: 25 })
    expect(readFileSync(join(dir, "out", "r.run-1.report.md"), "utf8")).toContain(
      "> run 1's records were removed by retention"
    )
  }, 60_000)

  it("runs marks that run alone, and --json says so", async () => {
    const runs = spawnCli(["runs", job], env)
    expect(await runs.exited).toBe(0)
    const rows = runs.out().trim().split("\n").slice(1)
    expect(rows.map((r) => [r.split(/\s+/)[0], r.endsWith("records removed by retention")])).toEqual([
      ["3", false],
      ["2", false],
      ["1", true]
    ])
    const json = spawnCli(["runs", job, "--json"], env)
    expect(await json.exited).toBe(0)
    const views = json
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; recordsRemoved: boolean; done: number })
    expect(views.map((v) => [v.id, v.recordsRemoved, v.done])).toEqual([
      [3, false, 25],
      [2, false, 25],
      [1, true, 25]
    ])
  }, 60_000)

  it("status --run 1 says so on its records line", async () => {
    const status = spawnCli(["status", job, "--run", "1"], env)
    expect(await status.exited).toBe(0)
    expect(status.out()).toContain("records  25/25 (25 done, 0 failed, 0 pending); removed by retention")
  }, 60_000)
})
