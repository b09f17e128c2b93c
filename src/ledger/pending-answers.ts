/**
 * The write-behind buffer's side of the ledger, the same in every adapter: the operations it
 * holds, and the answers written but not yet committed, which a lookup must still find (a worker
 * reads back its own answer at once). Storage-independent and synchronous: the SQLite adapter's
 * hot path runs through it.
 */
import { codecFor } from "./answer-codec.ts"
import type { AnswerEntry, RecordOutcome, RecordStatus, StoredAnswer, StoredSchema } from "./ledger.ts"
import { encodeError, encodeOutput } from "./outcome-codec.ts"

/** One buffered write. */
export type WriteOp =
  | { readonly _tag: "Answer"; readonly entry: AnswerEntry; readonly stored: StoredAnswer }
  | {
      readonly _tag: "Record"
      readonly runId: number
      readonly ordinal: number
      readonly key: string
      readonly status: RecordStatus
      readonly output: string | null
      readonly error: string | null
    }

export const recordOp = (runId: number, ordinal: number, key: string, outcome: RecordOutcome): WriteOp =>
  outcome._tag === "Done"
    ? { _tag: "Record", runId, ordinal, key, status: "done", output: encodeOutput(outcome.output), error: null }
    : { _tag: "Record", runId, ordinal, key, status: "failed", output: null, error: encodeError(outcome.error) }

/** An answer buffered, and when it was written (its `created_at` once committed). */
export interface PendingAnswer {
  readonly stored: StoredAnswer
  readonly at: number
}

/** A window's keys split: what was found buffered, and the keys (with their places) to ask storage for. */
export interface PendingSplit<T> {
  readonly found: Array<T>
  readonly ask: Array<string>
  readonly askedAt: Array<number>
}

export const makePendingAnswers = () => {
  const byKey = new Map<string, PendingAnswer>()
  /** What each buffered answer gives (`of`); the keys with none, and their places, to be asked. */
  const splitBy = <T>(keys: ReadonlyArray<string>, of: (queued: PendingAnswer) => T, absent?: T): PendingSplit<T> => {
    const found = new Array<T>(keys.length)
    if (absent !== undefined) found.fill(absent)
    const ask: Array<string> = []
    const askedAt: Array<number> = []
    for (let i = 0; i < keys.length; i++) {
      const queued = byKey.get(keys[i]!)
      if (queued !== undefined) found[i] = of(queued)
      else {
        ask.push(keys[i]!)
        askedAt.push(i)
      }
    }
    return { found, ask, askedAt }
  }
  return {
    get: (key: string): PendingAnswer | undefined => byKey.get(key),
    has: (key: string): boolean => byKey.has(key),
    /** An answer written now, encoded through its Schema: buffered, and returned as the op that stores it. */
    put: <A>(entry: AnswerEntry, schema: StoredSchema<A>, value: A): WriteOp => {
      const stored = codecFor(schema).encode(value)
      byKey.set(entry.key, { stored, at: Date.now() })
      return { _tag: "Answer", entry, stored }
    },
    /** After its commit: forgotten, unless a newer answer for the key was buffered meanwhile. */
    committed: (key: string, stored: StoredAnswer): void => {
      if (byKey.get(key)?.stored === stored) byKey.delete(key)
    },
    /** Buffered answers at `since` or newer are found; keys with none buffered are to be asked. */
    split: (keys: ReadonlyArray<string>, since: number): PendingSplit<StoredAnswer | undefined> =>
      splitBy(keys, (queued) => (queued.at >= since ? queued.stored : undefined)),
    /** `inBytes` of the buffered answers (false: one of another shape, or older than `since`); the rest to be asked. */
    splitInBytes: (keys: ReadonlyArray<string>, since: number): PendingSplit<boolean> =>
      splitBy(keys, (queued) => queued.at >= since && typeof queued.stored !== "string", false)
  }
}
