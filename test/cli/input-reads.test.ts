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
    // The fingerprint, the processing pass; with a store the output is not written inline: the
    // input's check, the output pass, the check before the commit. The report is tallied as the
    // output is written (before: a sixth read of its own). The goal is 3: the fingerprint, the
    // processing pass and the check before the commit.
    expect(reads).toEqual(["bytes", "records", "bytes", "records", "bytes"])
  }, 60_000)
})
