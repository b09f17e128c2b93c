/**
 * A consumer of the output's rows beside the sink, the rejects file and the store: every record of
 * the input joined with its outcome, in input order, as the output writes it (so a figure over the
 * whole input, such as the report's, needs no read of its own). An output writer makes a fresh
 * one from each factory: an inline output that gives up hands over to the output pass, which
 * starts again. `commit` says its output was committed: the tally that matches the output written.
 */
import type { StoredRecord } from "../../ledger/ledger.ts"

export interface RowTally {
  readonly add: (fields: Readonly<Record<string, unknown>>, stored: StoredRecord) => void
  readonly commit: () => void
}

export type RowTallies = ReadonlyArray<() => RowTally>
