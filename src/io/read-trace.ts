/**
 * A trace of the reads of input files, for a test that counts how often one run reads its input
 * (each read of a large corpus costs as much as the run's own work). Off unless
 * SVC_BATCH_TRACE_READS names a file; then each read appends `<kind>\t<path>` to it.
 */
import { appendFileSync } from "node:fs"

// Read once: the check on each read is then one comparison.
const target = process.env.SVC_BATCH_TRACE_READS

/** `bytes`: the file hashed whole; `records`: read whole as records; `header`: its first line only. */
export const traceRead = (kind: "bytes" | "records" | "header", path: string): void => {
  if (target !== undefined && target !== "") appendFileSync(target, `${kind}\t${path}\n`)
}
