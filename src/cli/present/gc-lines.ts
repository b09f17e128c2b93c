/** What retention removed, in one line (`gc`, and a finished run's retention). */
import type { GcResult } from "../../ledger/ledger.ts"

export const describeGc = (r: GcResult): string => {
  const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`
  return `${r.records} records of ${r.runs.length} older run(s) and ${r.answers} unused answers removed; ${mib(r.bytesBefore)} → ${mib(r.bytesAfter)}${r.compacted ? " (compacted)" : ""}`
}
