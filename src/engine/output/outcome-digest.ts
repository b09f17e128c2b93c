/**
 * A digest of a run's outcomes in input order, as the output reads them from the ledger: two runs
 * over one input with the same digest give every row the same outcome (the same answers referred
 * to, the same failures), so their outputs are the same, answers unchanged.
 */
import { createHash } from "node:crypto"
import type { StoredRecord } from "../../ledger/ledger.ts"

export interface OutcomeDigest {
  /** A record of the input and its outcome (undefined: none recorded). */
  readonly add: (ordinal: number, stored: StoredRecord | undefined) => void
  readonly digest: () => string
}

export const makeOutcomeDigest = (): OutcomeDigest => {
  const hash = createHash("sha256")
  // Outcomes are small (answers are referred to by key): hashed as JSON text, a line each.
  return {
    add: (ordinal, stored) => void hash.update(`${ordinal}\t${stored === undefined ? "-" : JSON.stringify(stored)}\n`),
    digest: () => hash.copy().digest("base64url")
  }
}
