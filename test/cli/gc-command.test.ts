/** Retention: a nightly job's ledger stays bounded; `svc-batch gc` applies it on demand. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

const nightly = (extra = "") => {
  const dir = tempDir()
  const input = writeCorpus(dir, 2000)
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: nightly\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/result.jsonl }\n${extra}`
  )
  return { dir, job, ledger: join(dir, ".svc-batch", "nightly.ledger.sqlite") }
}

describe("ledger retention", () => {
  it("10 nightly runs of an unchanged corpus: the ledger stops growing at the size of the answers and three runs' records, and is never rewritten; the trend still counts every run", async () => {
    const { dir, job, ledger } = nightly()
    const sizes: Array<number> = []
    const runs: Array<ReturnType<typeof spawnCli>> = []
    for (let i = 0; i < 10; i++) {
      const run = spawnCli(["run", job], env)
      expect(await run.exited).toBe(0)
      runs.push(run)
      sizes.push(statSync(ledger).size)
    }
    // From the third run on, retention deletes the records of the run before the previous one; the
    // next run's records take those pages back, so the file is not compacted (a rewrite of the
    // whole file every night) and holds at what the third run reached: the answers and three runs'
    // records (one run's = sizes[1] − sizes[0]). Commits batch by the event loop's turns, so free
    // pages differ by a few between runs: 5 % is slack for that, well under one run's records
    // (~200 KB) that a ledger without retention would add every night.
    const threeRuns = 2 * sizes[1]! - sizes[0]!
    expect(sizes[9]!).toBeLessThanOrEqual(sizes[2]! * 1.05)
    expect(sizes[9]!).toBeLessThanOrEqual(threeRuns * 1.05)
    expect(runs.slice(2).map((r) => /retention: 2000 records of 1 older run\(s\)/.test(r.out()))).toEqual(
      Array(8).fill(true)
    )
    expect(runs.filter((r) => r.out().includes("(compacted)"))).toHaveLength(0)
    const report = JSON.parse(readFileSync(join(dir, "out", "result.report.json"), "utf8")) as {
      moderation: { trend: Array<{ runId: number; records: number; harmful: number }> }
    }
    expect(report.moderation.trend.map((t) => [t.runId, t.records, t.harmful])).toEqual(
      Array.from({ length: 7 }, (_, i) => [i + 4, 2000, 400])
    )
  }, 120_000)

  it("gc --keep-runs: removes older runs' records, reports sizes; runs still lists every run", async () => {
    const { job } = nightly("retention: { runs: 5 }\nreport: { enabled: false }\n")
    for (let i = 0; i < 3; i++) expect(await spawnCli(["run", job], env).exited).toBe(0)
    const gc = spawnCli(["gc", job, "--keep-runs", "2", "--json"], env)
    expect(await gc.exited).toBe(0)
    const result = JSON.parse(gc.out()) as {
      runs: Array<number>
      records: number
      answers: number
      bytesBefore: number
      bytesAfter: number
    }
    expect(result).toMatchObject({ runs: [1], records: 2000, answers: 0 })
    expect(result.bytesAfter).toBeLessThan(result.bytesBefore)
    const runs = spawnCli(["runs", job], env)
    expect(await runs.exited).toBe(0)
    expect(runs.out().trim().split("\n")).toHaveLength(4)
  }, 60_000)

  it("refuses a retention that would break the report's comparison, in a job file and from gc's flags alike", async () => {
    const { job } = nightly("retention: { runs: 1 }\n")
    const run = spawnCli(["run", job], env)
    expect(await run.exited).toBe(2)
    expect(run.err()).toContain("retention.runs: at least 2: the report compares a run with the previous one")
    // gc takes the job file's bounds: --keep-runs 1 would leave the next report no run to compare with.
    const { job: fine } = nightly()
    const gc = spawnCli(["gc", fine, "--keep-runs", "1"], env)
    expect(await gc.exited).toBe(2)
    expect(gc.err()).toContain("--keep-runs: at least 2: the report compares a run with the previous one")
  }, 30_000)
})
