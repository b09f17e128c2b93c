/**
 * A pipeline over records held in memory, for library users: each record through the stages,
 * answered by the ledger (a `Ledger` layer: a file to keep answers across runs, or
 * `SqliteLedger.layerMemory`) or the service, with the same rate limits, retries and in-flight
 * deduplication as a job. Returns each record's rows, or why it failed; no files are written.
 */
import { Effect } from "effect"
import { Ledger } from "../../ledger/ledger.ts"
import type { FailureInfo } from "../../ledger/stored.ts"
import { makeAnswerCache } from "./answer-cache.ts"
import { makeStageFold } from "./stage-fold.ts"
import { defaultRetryPolicy, makeDispatcher, type RetryPolicy } from "../flow/dispatcher.ts"
import { RunStats } from "../run-stats.ts"
import type { Fields, Pipeline, Row } from "../../pipeline/stage.ts"

export type ProcessedRecord =
  | { readonly _tag: "Done"; readonly fields: Fields; readonly rows: ReadonlyArray<Row> }
  | { readonly _tag: "Failed"; readonly fields: Fields; readonly error: FailureInfo }

export interface ProcessOptions {
  /** Records in progress at once (default 32). */
  readonly records?: number
  /** Requests per minute per model (`*` for the rest); none: learn from 429s. */
  readonly rpm?: Readonly<Record<string, number>>
  /** Most requests in flight per model (default 16). */
  readonly concurrency?: number
  readonly retry?: RetryPolicy
}

export const processRecords = (pipeline: Pipeline, records: Iterable<Fields>, options: ProcessOptions = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const stats = new RunStats()
      const dispatcher = yield* makeDispatcher(
        {
          rpm: options.rpm ?? {},
          maxConcurrency: options.concurrency ?? 16,
          retry: options.retry ?? defaultRetryPolicy
        },
        stats
      )
      const answers = yield* makeAnswerCache(ledger, stats, { cache: "read-write" }, 0, dispatcher)
      const { fold } = makeStageFold(pipeline, answers, { referenceAnswers: false })
      const results = yield* Effect.forEach(
        records,
        (fields) =>
          dispatcher.record(fold(fields)).pipe(
            Effect.map((done): ProcessedRecord => ({ _tag: "Done", fields, rows: done.output.rows })),
            // A request that failed for good fails its record (the fold says which stage): no RequestFailed escapes it.
            Effect.catchTag("RecordFailed", (failed) =>
              Effect.succeed<ProcessedRecord>({ _tag: "Failed", fields, error: failed.info })
            )
          ),
        { concurrency: options.records ?? 32 }
      )
      yield* ledger.flush
      return results
    })
  )
