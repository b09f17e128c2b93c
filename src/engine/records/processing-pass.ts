/**
 * The processing pass of a run: records stream from the source; one this run already finished is
 * skipped; the others go through the stage fold, answered by the answer cache (ledger, in flight,
 * or the service); each outcome goes to the ledger, and to the inline output when there is one.
 * A window of records is read at a time: the first stage prepared for each and its stored answers
 * read in one query, so a record whose every answer is known is done in the reading fiber, with
 * no worker and no request (a warm rerun), and only the rest go on to the workers.
 */
import { Chunk, Effect, Option, Stream } from "effect"
import { Ledger, type LedgerError, type RecordOutcome, type StoredRecord } from "../../ledger/ledger.ts"
import type { InputUnit, SourceItem, SourceRecord } from "../../io/source.ts"
import { type InputTypes, makeKindObserver } from "../../io/input-types.ts"
import { isNotUtf8 } from "../../io/encoding.ts"
import { type AnswerSettings, makeAnswerCache } from "./answer-cache.ts"
import { outcomesReader } from "../output/outcome-reader.ts"
import { type FoldedRecord, makeStageFold, RecordFailed, type RecordInFold } from "./stage-fold.ts"
import type { Dispatcher, JobAborted, RequestFailed } from "../flow/dispatcher.ts"
import type { RunStats } from "../run-stats.ts"
import type { Prepared, StageRequest } from "../../pipeline/stage.ts"
import type { Source } from "../../io/source.ts"
import type { Pipeline } from "../../pipeline/stage.ts"

/** Records whose stored answers are read in one query. */
const WINDOW = 512

/** Most columns collected from a source that declares none (a guard against a key per record). */
export const MAX_COLLECTED_COLUMNS = 10_000

/** What the processing pass reads of a run's settings (the run's own type is wider; this one imports nothing of the run). */
export interface ProcessingSettings extends Omit<AnswerSettings, "origin"> {
  /** Where answers come from ("emulator" or the service's base URL): the answers' origin. */
  readonly service?: string | undefined
  readonly pipeline: Pipeline
  readonly source: Source
  readonly fingerprint: string
  /** Column holding a stable record id; else fingerprint:ordinal. */
  readonly idField?: string | undefined
  readonly retryFailed: boolean
}

/** A record on its way to a worker, with where the fold stands for it. */
interface RecordForWorker {
  readonly record: SourceRecord
  readonly state: RecordInFold
}

/** A record's stable key: its id column, else the input's fingerprint and the record's ordinal. */
const recordKey = (settings: Pick<ProcessingSettings, "idField" | "fingerprint">, r: SourceRecord): string => {
  const id = settings.idField !== undefined ? r.fields[settings.idField] : undefined
  return id !== undefined && id !== null && id !== "" ? String(id) : `${settings.fingerprint.slice(0, 12)}:${r.ordinal}`
}

/**
 * What the pass tells the output written as the run goes (the inline output): items as read and
 * outcomes as settled. A port, so this room does not import the output's.
 */
export interface OutcomeListener {
  readonly read: (item: SourceItem) => void
  readonly settle: (ordinal: number, stored: StoredRecord) => Effect.Effect<void>
  readonly settleAll: (outcomes: ReadonlyArray<StoredRecord & { readonly ordinal: number }>) => Effect.Effect<void>
  /** Whether it still listens (false once the inline output gave up). */
  readonly active: () => boolean
}

export interface ProcessingContext {
  readonly runId: number
  readonly resumed: boolean
  /** When the run first started: refresh mode reuses no answer stored before it. */
  readonly startedAt: number
  /** The run's flow (dispatcher.ts): how requests go out, and the workers records go to. */
  readonly dispatcher: Dispatcher
  /** The output written as records finish, when the sink allows it. */
  readonly inline: OutcomeListener | undefined
  /** The columns the source declares; undefined: collected from the records read. */
  readonly declared: ReadonlyArray<string> | undefined
  /** Whether the source declares its value types (else the kinds met are observed). */
  readonly knownTypes: boolean
  /** Only this part of the input (a cluster's work unit); none: the whole input. */
  readonly unit?: InputUnit | undefined
}

export interface ProcessingResult {
  /** A stop (a signal, or the request budget) ended the pass before the input's end. */
  readonly stopped: boolean
  /** The stop was the request budget's. */
  readonly budgetSpent: boolean
  /** A source that declares no columns: every key met, in order of first appearance. */
  readonly columns: ReadonlyArray<string>
  /** Keys met after `MAX_COLLECTED_COLUMNS` distinct ones, left out of `columns`. */
  readonly overflow: number
  /** The kinds of value met in every column (for a typed output of an untyped source). */
  readonly types: () => InputTypes
}

export const processingPass = (settings: ProcessingSettings, stats: RunStats, context: ProcessingContext) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const { runId, resumed, dispatcher, inline, declared, knownTypes } = context
    const answers = yield* makeAnswerCache(
      ledger,
      stats,
      { cache: settings.cache, origin: settings.service },
      context.startedAt,
      dispatcher
    )
    const fold = makeStageFold(settings.pipeline, answers, { referenceAnswers: settings.cache !== "off" })

    /** A record's outcome: to the ledger, then to the output written as the run goes. */
    const finished = (record: SourceRecord, key: string, outcome: RecordOutcome) => {
      const stored = ledger.putRecord(runId, record.ordinal, key, outcome)
      return inline === undefined ? stored : Effect.zipRight(stored, inline.settle(record.ordinal, { key, outcome }))
    }
    /** A record's end in the fold, counted: done, or failed (an outcome, not an error of the run). */
    const outcomeOf = (end: FoldedRecord | RecordFailed): RecordOutcome => {
      if (end instanceof RecordFailed) {
        stats.recordFailed()
        return { _tag: "Failed", error: end.info }
      }
      stats.recordDone(end.counts)
      return { _tag: "Done", output: end.output }
    }
    /** A worker's record: the fold carried on from where the reading fiber left it. JobAborted still stops the run. */
    const process = ({ record, state }: RecordForWorker) =>
      fold.carryOn(state).pipe(
        Effect.catchTag("RecordFailed", (failure: RecordFailed) => Effect.succeed(failure)),
        Effect.flatMap((end) => finished(record, recordKey(settings, record), outcomeOf(end)))
      )
    // Only a resumed run has records already (a new one need not look): read once, not per record.
    const statuses = resumed ? yield* Effect.zipRight(ledger.flush, ledger.recordStatuses(runId)) : undefined
    /** A record this run already finished (failed ones too, unless retried) is skipped. */
    const skipped = (record: SourceRecord): boolean => {
      const status = statuses?.get(record.ordinal)
      if (status === undefined || (status === "failed" && settings.retryFailed)) return false
      stats.recordSkipped(status === "failed")
      return true
    }
    // A resumed run's records finished before, for the output written as the run goes.
    const earlierOutcomes = resumed && inline !== undefined ? outcomesReader(ledger, runId) : undefined
    const settleSkipped = (ordinals: ReadonlyArray<number>) =>
      earlierOutcomes === undefined || ordinals.length === 0 || !inline!.active()
        ? Effect.void
        : Effect.flatMap(earlierOutcomes(ordinals), (stored) => {
            const settled: Array<{ ordinal: number; key: string; outcome: RecordOutcome }> = []
            for (let i = 0; i < ordinals.length; i++) {
              const s = stored[i]
              if (s !== undefined) settled.push({ ordinal: ordinals[i]!, key: s.key, outcome: s.outcome })
            }
            return inline!.settleAll(settled)
          })
    /**
     * A window of records as read: finished ones skipped; the rest begin the fold here: the first
     * stage to run prepared and its stored answers read in one query; a record whose answers are
     * all known goes on through that stage here (no fiber, no request), and one the fold finishes
     * (a one-stage pipeline on a warm rerun) is stored with the window's; the rest go on to the
     * workers with their record in fold.
     */
    const window = (
      chunk: Chunk.Chunk<SourceRecord>
    ): Effect.Effect<Chunk.Chunk<RecordForWorker>, JobAborted | RequestFailed | LedgerError> =>
      Effect.suspend(() => {
        const todo: Array<SourceRecord> = []
        const skippedOrdinals: Array<number> = []
        for (const record of chunk) {
          if (!skipped(record)) todo.push(record)
          else if (earlierOutcomes !== undefined) skippedOrdinals.push(record.ordinal)
        }
        if (skippedOrdinals.length > 0) return Effect.zipRight(settleSkipped(skippedOrdinals), windowOf(todo))
        return windowOf(todo)
      })
    const windowOf = (
      todo: Array<SourceRecord>
    ): Effect.Effect<Chunk.Chunk<RecordForWorker>, JobAborted | RequestFailed | LedgerError> =>
      Effect.suspend(() => {
        if (settings.cache === "off")
          return Effect.succeed(
            Chunk.unsafeFromArray(todo.map((record) => ({ record, state: fold.begin(record.fields) })))
          )
        const requests: Array<StageRequest> = []
        const states: Array<RecordInFold> = []
        const steps: Array<Prepared | RecordFailed | undefined> = []
        // Per record and per request: whether the record only refers to the answers (`refersOnly`).
        const refers: Array<boolean> = []
        const refersOf: Array<boolean> = []
        for (const record of todo) {
          const state = fold.begin(record.fields)
          const step = fold.prepareNext(state)
          const only = step !== undefined && !(step instanceof RecordFailed) && fold.refersOnly(state, step)
          if (step !== undefined && !(step instanceof RecordFailed))
            for (const r of step.requests) {
              requests.push(r)
              refersOf.push(only)
            }
          states.push(state)
          steps.push(step)
          refers.push(only)
        }
        return Effect.flatMap(answers.prefetch(requests, refersOf), (keys) => {
          const rest: Array<RecordForWorker> = []
          const outcomes: Array<{ ordinal: number; key: string; outcome: RecordOutcome }> = []
          // The record's requests are keys[from, to): prepared records' requests in order.
          let to = 0
          for (let i = 0; i < todo.length; i++) {
            const record = todo[i]!
            const state = states[i]!
            const step = steps[i]
            let end: FoldedRecord | RecordFailed | undefined
            if (step === undefined) end = fold.result(state)
            else if (step instanceof RecordFailed) end = step
            else {
              const from = to
              to += step.requests.length
              if (!answers.allKnown(keys, from, to, refers[i]))
                state.pending = { prepared: step, keys: keys.slice(from, to) }
              else {
                // Every answer known: the stage is folded here, with no fiber.
                end = fold.absorb(state, step, keys.slice(from, to), answers.knownAnswers(keys, from, to))
                if (end === undefined && fold.finished(state)) end = fold.result(state)
              }
            }
            if (end === undefined) rest.push({ record, state })
            else outcomes.push({ ordinal: record.ordinal, key: recordKey(settings, record), outcome: outcomeOf(end) })
          }
          const chunk = Chunk.unsafeFromArray(rest)
          if (outcomes.length === 0) return Effect.succeed(chunk)
          const stored = ledger.putRecords(runId, outcomes)
          return Effect.as(inline === undefined ? stored : Effect.zipRight(stored, inline.settleAll(outcomes)), chunk)
        })
      })

    const shape = makeShapeCollector()
    const records = settings.source.items(context.unit).pipe(
      Stream.filterMap((item) => {
        inline?.read(item)
        if (item._tag === "Record") {
          shape.observe(item.fields, declared, knownTypes)
          return Option.some(item)
        }
        stats.readReject(isNotUtf8(item.reason))
        return Option.none()
      }),
      Stream.rechunk(WINDOW),
      Stream.mapChunksEffect(window)
    )
    const pass = yield* dispatcher.records({ items: records, process, holds: (item) => item.record.fields })

    return { stopped: pass.stopped, budgetSpent: pass.budgetSpent, ...shape.result() } satisfies ProcessingResult
  })

/**
 * The input's shape as read: a source that declares no columns (JSONL) has every key met become a
 * column of a CSV or Parquet output, in order of first appearance — not only the first record's
 * keys; a source that does not declare its types (CSV, JSONL) has the kinds of value met in every
 * record observed, so a typed output (Parquet) picks a type every value fits.
 */
const makeShapeCollector = () => {
  const seen = new Set<string>()
  let overflow = 0
  const kinds = makeKindObserver()
  return {
    observe: (
      fields: Readonly<Record<string, unknown>>,
      declared: ReadonlyArray<string> | undefined,
      knownTypes: boolean
    ) => {
      if (declared === undefined) {
        for (const k in fields) {
          if (seen.has(k)) continue
          if (seen.size < MAX_COLLECTED_COLUMNS) seen.add(k)
          else overflow++
        }
      }
      if (!knownTypes) kinds.observe(fields)
    },
    result: () => ({ columns: [...seen], overflow, types: kinds.types })
  }
}

/**
 * The shape of the whole input and its unreadable rows, read without processing it: for a run
 * whose records other processes processed (a cluster's units), before its output is written.
 */
export const readShape = (source: Source, declared: ReadonlyArray<string> | undefined, onReject: () => void) =>
  Effect.gen(function* () {
    const shape = makeShapeCollector()
    const knownTypes = source.inputTypes !== undefined
    yield* Stream.runForEach(source.items(), (item) =>
      Effect.sync(() => (item._tag === "Record" ? shape.observe(item.fields, declared, knownTypes) : onReject()))
    )
    return shape.result()
  })
