/**
 * One record through a pipeline's stages (the stage fold), given a way to answer requests. No
 * HTTP, no ledger: unit-testable with any `ask`. One fold for every path: `begin` → for each stage
 * that runs, `prepareNext` → its answers → `absorb` → `result`. The reading fiber drives it as far
 * as the stored answers reach (a warm rerun is done there, with no fiber); a worker drives the
 * rest (`carryOn`), from the record in fold it is handed.
 * - Each stage sees the input fields plus the columns of the stages before it.
 * - A stage whose `when` does not hold is skipped: its columns are null.
 * - A one-row stage must assemble exactly one row; a fan-out stage (only ever the last) may
 *   assemble several, each carrying the earlier stages' columns. Every row has every column.
 * - Vector columns that are (part of) an answer are stored as references to that answer, so a
 *   1536-float vector lives once in the ledger, not once per run.
 */
import { Data, Effect, type Either } from "effect"
import type { Column } from "../../pipeline/columns.ts"
import { mergeRow } from "../../pipeline/merge-row.ts"
import type { AnswerRef, FailureInfo, RecordOutput } from "../../ledger/stored.ts"
import type { Ask } from "./answer-cache.ts"
import type { JobAborted, RequestFailed } from "../flow/retry.ts"
import {
  type Fields,
  type Pipeline,
  type Prepared,
  type Row,
  type Stage,
  StageInputError,
  type StageRequest
} from "../../pipeline/stage.ts"

/** A record that cannot be done: an outcome of the run, not an error of it. */
export class RecordFailed extends Data.TaggedError("RecordFailed")<{ readonly info: FailureInfo }> {}

/** What the fold makes of a record: its output for the ledger, and the stage counters it adds. */
export interface FoldedRecord {
  readonly output: RecordOutput
  readonly counts: Readonly<Record<string, number>>
}

/** Where the fold's answers come from (the answer cache, or a test's fake). */
export interface AnswerSource {
  readonly ask: Ask
  /** The key a request's answer is stored under. */
  readonly keyOf: (request: StageRequest) => string
}

export interface FoldOptions {
  /** Store vector columns as references to their answers (needs the answers to be stored). */
  readonly referenceAnswers: boolean
}

/** The next stage prepared for a record, with the keys its answers are stored under (in request order). */
export interface KeyedPreparation {
  readonly prepared: Prepared
  readonly keys: ReadonlyArray<string>
}

/**
 * A record part-way through the fold. It travels as a value: the reading fiber folds what the
 * stored answers allow, and a worker carries on from where it stopped.
 */
export interface RecordInFold {
  /** The next stage to look at (after `prepareNext`: the stage prepared). */
  next: number
  /** The input fields plus the columns of the stages done (what the next stage reads). */
  fields: Fields
  /** The record's columns so far (vector answers as references when they are stored). */
  columns: Readonly<Record<string, unknown>>
  /** The rows of a final fan-out stage. */
  fanned: ReadonlyArray<Row> | undefined
  keys: ReadonlyArray<string>
  counts: Readonly<Record<string, number>> | undefined
  /** The next stage, prepared (and its answers looked up) by the reading fiber, if it was. */
  pending: KeyedPreparation | undefined
}

const fail = (stage: string, status: string, message: string, attempts = 0) =>
  new RecordFailed({ info: { stage, status, message, attempts } })

/** A vector value that is an answer, or a property of one, becomes a reference to it. */
const referenced = (
  value: unknown,
  answers: ReadonlyArray<unknown>,
  keys: ReadonlyArray<string>
): AnswerRef | undefined => {
  if (value === null || typeof value !== "object") return undefined
  for (let i = 0; i < answers.length; i++) {
    const a = answers[i]
    if (a === value) return { $answer: keys[i]! }
    if (a !== null && typeof a === "object") {
      for (const [path, v] of Object.entries(a)) if (v === value) return { $answer: keys[i]!, $path: path }
    }
  }
  return undefined
}

const nulls = (columns: ReadonlyArray<Column>): Record<string, unknown> =>
  Object.fromEntries(columns.map((c) => [c.name, null]))

/** Two stages' counters added up (a new object: a stage's own counters are never changed). */
const addCounts = (
  a: Readonly<Record<string, number>> | undefined,
  b: Readonly<Record<string, number>> | undefined
) => {
  if (b === undefined) return a
  if (a === undefined) return b
  const sum: Record<string, number> = { ...a }
  for (const [k, v] of Object.entries(b)) sum[k] = (sum[k] ?? 0) + v
  return sum
}

export const makeStageFold = (pipeline: Pipeline, answers: AnswerSource, options: FoldOptions) => {
  const stages = pipeline.stages
  const allNull = nulls(pipeline.columns)
  const skippedColumns = stages.map((s) => nulls(s.columns))
  const vectorColumns = stages.map((s) =>
    options.referenceAnswers ? s.columns.filter((c) => c.type._tag === "vector") : []
  )

  /** A record at the start of the fold. */
  const begin = (input: Fields): RecordInFold => ({
    next: 0,
    fields: input,
    columns: allNull,
    fanned: undefined,
    keys: [],
    counts: undefined,
    pending: undefined
  })

  /**
   * Skips the stages whose `when` does not hold (their columns null) and prepares the next one;
   * undefined when no stage is left. Synchronous: a stage prepares without I/O.
   */
  const prepareNext = (state: RecordInFold): Prepared | RecordFailed | undefined => {
    const stage = skipIdle(state)
    if (stage === undefined) return undefined
    const prepared = stage.prepare(state.fields)
    return prepared instanceof StageInputError ? fail(stage.name, "input", prepared.message) : prepared
  }

  /** Passes the stages whose `when` does not hold; the next stage to run, if any. */
  const skipIdle = (state: RecordInFold): Stage | undefined => {
    for (;;) {
      const stage = stages[state.next]
      if (stage === undefined || stage.when === undefined || stage.when.test(state.fields)) return stage
      state.fields = mergeRow(state.fields, skippedColumns[state.next]!)
      state.next++
    }
  }

  /**
   * Whether the stage `prepareNext` prepared needs its stored answers only to be present: it places
   * them, unread, in vector columns the record refers to them from, and no later stage reads them.
   * The fold may then be given stand-ins (`absorb`'s answers) that are those references.
   */
  const refersOnly = (state: RecordInFold, prepared: Prepared): boolean =>
    prepared.placesAnswers === true && state.next === stages.length - 1 && vectorColumns[state.next]!.length > 0

  /** Whether no stage is left to run for the record. */
  const finished = (state: RecordInFold): boolean => state.pending === undefined && skipIdle(state) === undefined

  /**
   * Every answer of the stage `prepareNext` prepared (in request order, stored under `keys`): its
   * rows folded into the record, or why it fails. Arguments, not an object: once per record on a warm rerun.
   */
  const absorb = (
    state: RecordInFold,
    prepared: Prepared,
    keys: ReadonlyArray<string>,
    answered: ReadonlyArray<unknown>
  ): RecordFailed | undefined => {
    const stage = stages[state.next]!
    let rows: ReadonlyArray<Row>
    try {
      rows = prepared.assemble(answered)
    } catch (e) {
      return fail(stage.name, "assemble", `could not assemble the answers: ${(e as Error).message}`)
    }
    if (!stage.fanOut && rows.length !== 1)
      return fail(stage.name, "stage-contract", `a one-row stage assembled ${rows.length} rows`)
    const vectors = vectorColumns[state.next]!
    const stored =
      vectors.length === 0
        ? rows
        : rows.map((row) => {
            const copy: Record<string, unknown> = { ...row }
            for (const c of vectors) {
              const ref = referenced(row[c.name], answered, keys)
              if (ref !== undefined) copy[c.name] = ref
            }
            return copy
          })
    state.keys = state.keys.length === 0 ? keys : [...state.keys, ...keys]
    state.counts = addCounts(state.counts, prepared.counts)
    if (stage.fanOut) {
      // Zero rows would drop the record from the output: keep one row with null columns.
      const columns = state.columns
      state.fanned = stored.length === 0 ? [{ ...columns }] : stored.map((r) => mergeRow(columns, r))
    } else {
      // Later stages read the values; the ledger keeps the references.
      state.columns = mergeRow(state.columns, stored[0]!)
      if (state.next + 1 < stages.length) state.fields = mergeRow(state.fields, rows[0]!)
    }
    state.next++
    return undefined
  }

  /** The record's output, once no stage is left. */
  const result = (state: RecordInFold): FoldedRecord => ({
    output: { keys: state.keys, rows: state.fanned ?? [state.columns === allNull ? { ...allNull } : state.columns] },
    counts: state.counts ?? {}
  })

  /** The settled answers of a step: all of them, or why the record fails (the first failure in request order). */
  const settle = (
    stage: Stage,
    prepared: Prepared,
    settled: ReadonlyArray<Either.Either<unknown, RequestFailed | JobAborted>>
  ): Array<unknown> | RecordFailed | JobAborted => {
    const answered: Array<unknown> = []
    let failure: { readonly error: RequestFailed; readonly index: number } | undefined
    for (const [index, r] of settled.entries()) {
      if (r._tag === "Right") answered.push(r.right)
      else if (r.left._tag === "JobAborted") return r.left
      else failure ??= { error: r.left, index }
    }
    if (failure === undefined) return answered
    const { error: e, index } = failure
    const label = prepared.requests[index]!.label
    return fail(stage.name, e.status, label === undefined ? e.detail : `${label}: ${e.detail}`, e.attempts)
  }

  // Every request runs to its end even when a sibling fails, so finished chunks are stored for
  // the retry; then the first failure (in request order) fails the record.
  const askAll = ({ prepared, keys }: KeyedPreparation) =>
    prepared.requests.length === 1
      ? Effect.map(Effect.either(answers.ask(prepared.requests[0]!, keys[0]!)), (r) => [r])
      : Effect.all(
          prepared.requests.map((r, i) => answers.ask(r, keys[i]!)),
          { concurrency: "unbounded", mode: "either" }
        )

  /**
   * The rest of the fold: each stage left prepared, asked and absorbed in turn. Pipes, not a
   * generator: this runs for every record that goes to a worker.
   */
  const carryOn = (state: RecordInFold): Effect.Effect<FoldedRecord, RecordFailed | JobAborted> => {
    let step: KeyedPreparation | undefined = state.pending
    state.pending = undefined
    if (step === undefined) {
      const prepared = prepareNext(state)
      if (prepared === undefined) return Effect.succeed(result(state))
      if (prepared instanceof RecordFailed) return Effect.fail(prepared)
      step = { prepared, keys: prepared.requests.map(answers.keyOf) }
    }
    const { prepared, keys } = step
    return Effect.flatMap(askAll(step), (settled) => {
      const answered = settle(stages[state.next]!, prepared, settled)
      if (!Array.isArray(answered)) return Effect.fail(answered)
      const failed = absorb(state, prepared, keys, answered)
      return failed === undefined ? carryOn(state) : Effect.fail(failed)
    })
  }

  /** One record through every stage. */
  const fold = (input: Fields): Effect.Effect<FoldedRecord, RecordFailed | JobAborted> =>
    Effect.suspend(() => carryOn(begin(input)))

  return {
    fold,
    begin,
    prepareNext,
    absorb,
    finished,
    refersOnly,
    result,
    carryOn: (state: RecordInFold) => Effect.suspend(() => carryOn(state))
  }
}

export type StageFold = ReturnType<typeof makeStageFold>
