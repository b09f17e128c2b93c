/**
 * How many times one run reads its input (issue 26, item 3): a moderation run with a vector store
 * and a report, through the real command, counted by the read trace (src/io/read-trace.ts). Each
 * read of a large corpus costs as much as the run's own work.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

describe("input reads of a run", () => {
  it("a moderation run with a store and a report: the reads of its input, each named", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 200)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: reads\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nstages:\n  - moderate: { fields: [text] }\n  - embed: { field: text }\nstore: { path: out/kb.sqlite, text: text }\nreport: { enabled: true }\n`
    )
    const trace = join(dir, "reads.tsv")
    const run = spawnCli(["run", job], {
      SVC_BASE_URL: undefined,
      SVC_API_KEY: undefined,
      SVC_BATCH_TRACE_READS: trace
    })
    expect(await run.exited, run.err()).toBe(0)
    expect(run.out()).toContain("report")
    const reads = readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => l.endsWith(`\t${input}`))
      .map((l) => l.split("\t")[0])
    // The fingerprint, the processing pass (the output, the store and the report written as records
    // finish), the input's check before the commit. Before: five (the store forced an output pass,
    // with a check before it); six before the report was tallied from the output.
    expect(reads).toEqual(["bytes", "records", "bytes"])
  }, 60_000)

  it("an output that cannot be written inline (JSONL in, CSV out): the output pass reads it twice more", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 200)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: reads-csv\ninput: { path: ${input}, id: id }\noutput: { path: out/r.csv }\nstages:\n  - moderate: { fields: [text] }\nreport: { enabled: true }\n`
    )
    const trace = join(dir, "reads.tsv")
    const run = spawnCli(["run", job], {
      SVC_BASE_URL: undefined,
      SVC_API_KEY: undefined,
      SVC_BATCH_TRACE_READS: trace
    })
    expect(await run.exited, run.err()).toBe(0)
    const reads = readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => l.endsWith(`\t${input}`))
      .map((l) => l.split("\t")[0])
    // The fingerprint, the processing pass; the input's check before the output pass, the output
    // pass (the CSV header needs every key of the JSONL input), the check before the commit.
    expect(reads).toEqual(["bytes", "records", "bytes", "records", "bytes"])
  }, 60_000)
})
