/**
 * A cold job whose records repeat a few texts, through the real command under a small heap: almost
 * every record is answered from the ledger in the reading fiber while a worker writes the inline
 * output, in one long streak of writes. Each batch written must be garbage once written: the
 * output's pump once recursed inside its uninterruptible region, so the fiber's stack kept every
 * batch of a streak (issue 25: "JavaScript heap out of memory" after ~556k records).
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const RECORDS = 300_000
const DISTINCT = 100
/**
 * The heap cap. The run's live heap stays under ~90 MiB through tsx (sources newer than dist),
 * ~50 MiB from dist; the rows a streak kept grew past 170 MiB.
 */
const HEAP_MB = 160

describe("a cold job of duplicates", () => {
  it(`${RECORDS} records of ${DISTINCT} texts with --max-old-space-size=${HEAP_MB}: finishes, the output written as the run goes`, async () => {
    const dir = tempDir()
    const input = join(dir, "in.jsonl")
    // A padding field: fewer records per 256 KiB read, so the line never outgrows the inline
    // output's bound before the first answers land (it would give up and nothing streak); and
    // rows a streak would keep take more heap.
    const pad = "x".repeat(150)
    const lines: Array<string> = []
    for (let i = 0; i < RECORDS; i++) lines.push(`{"id":"r${i}","text":"t${i % DISTINCT}","pad":"${pad}"}\n`)
    writeFileSync(input, lines.join(""))
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: duplicates\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )

    const run = spawnCli(["run", job, "--log-level", "debug"], {
      SVC_BASE_URL: undefined,
      SVC_API_KEY: undefined,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --max-old-space-size=${HEAP_MB} --max-semi-space-size=8`
    })
    const code = await run.exited
    expect(run.err()).not.toContain("heap out of memory")
    expect(code).toBe(0)
    // Written inline (not by the output pass after processing): the streak this test is about happened.
    expect(run.err()).not.toContain("the output is written after processing")
    expect(run.out()).toContain(`finished: ${RECORDS} done, 0 failed`)
    const out = readFileSync(join(dir, "out", "r.jsonl"), "utf8")
    let n = 0
    for (let i = out.indexOf("\n"); i !== -1; i = out.indexOf("\n", i + 1)) n++
    expect(n).toBe(RECORDS)
  }, 180_000)
})
