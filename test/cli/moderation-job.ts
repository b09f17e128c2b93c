/** The moderation job the CLI tests start in another process and watch through its ledger. */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"

/**
 * A job named `name` over a fresh corpus of `records` in a temporary folder; `tail` holds the
 * job file's remaining lines (limits, report). The ledger is where the job's name puts it.
 */
export const moderationJob = (name: string, records: number, tail: string, output = "out/r.jsonl") => {
  const dir = tempDir()
  const input = writeCorpus(dir, records)
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: ${name}\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: ${output} }\n${tail}`
  )
  return { dir, input, job, ledger: join(dir, ".svc-batch", `${name}.ledger.sqlite`) }
}
