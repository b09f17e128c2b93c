/** Reading a run's outcomes beside its input, both in ordinal order. */
import { Effect, Option } from "effect"
import type { LedgerService, StoredRecord } from "../../ledger/ledger.ts"

/**
 * The run's outcomes in ordinal order, read a page at a time alongside the source (which reads in
 * the same order): one scan instead of a lookup per record.
 */
export const outcomeReader = (ledger: LedgerService, runId: number, pageSize = 2000) => {
  let page: ReadonlyArray<StoredRecord & { readonly ordinal: number }> = []
  let index = 0
  let exhausted = false
  return (ordinal: number): Effect.Effect<Option.Option<StoredRecord>> =>
    Effect.suspend(() => {
      while (index < page.length && page[index]!.ordinal < ordinal) index++
      if (index < page.length)
        return Effect.succeed(page[index]!.ordinal === ordinal ? Option.some(page[index]!) : Option.none())
      if (exhausted) return Effect.succeed(Option.none())
      return Effect.map(ledger.records(runId, ordinal, pageSize), (next) => {
        page = next
        index = 0
        exhausted = next.length < pageSize
        return next.length > 0 && next[0]!.ordinal === ordinal ? Option.some(next[0]!) : Option.none()
      })
    })
}

/**
 * The same, for a chunk of the source at once (ordinals ascending): one effect per chunk, not per
 * row; it suspends only to read the next page.
 */
export const outcomesReader = (ledger: LedgerService, runId: number, pageSize = 2000) => {
  let page: ReadonlyArray<StoredRecord & { readonly ordinal: number }> = []
  let index = 0
  let exhausted = false
  return (ordinals: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<StoredRecord | undefined>> =>
    Effect.gen(function* () {
      const out: Array<StoredRecord | undefined> = []
      for (const ordinal of ordinals) {
        while (index < page.length && page[index]!.ordinal < ordinal) index++
        if (index >= page.length && !exhausted) {
          page = yield* ledger.records(runId, ordinal, pageSize)
          index = 0
          exhausted = page.length < pageSize
        }
        out.push(index < page.length && page[index]!.ordinal === ordinal ? page[index] : undefined)
      }
      return out
    })
}
