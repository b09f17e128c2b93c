/**
 * One record through a pipeline's stages (the stage fold), given a way to answer requests. No
 * HTTP, no ledger: unit-testable with any `ask`.
 * - Each stage sees the input fields plus the columns of the stages before it.
 * - A stage whose `when` does not hold is skipped: its columns are null.
 * - A one-row stage must assemble exactly one row; a fan-out stage (only ever the last) may
 *   assemble several, each carrying the earlier stages' columns. Every row has every column.
 * - Vector columns that are (part of) an answer are stored as references to that answer, so a
 *   1536-float vector lives once in the ledger, not once per run.
 */
import { Data, Effect, type Either } from "effect"
import type { Column } from "../../pipeline/columns.ts"
import type { AnswerRef, FailureInfo, RecordOutput } from "../../ledger/stored.ts"
import type { Ask } from "./answer-cache.ts"
import type { JobAborted, RequestFailed } from "../flow/retry.ts"
import type { Fields, Pipeline, Prepared, Row, Stage, StageRequest } from "../../pipeline/stage.ts"

/** A record that cannot be done: an outcome of the run, not an error of it. */
export class RecordFailed extends Data.TaggedError("RecordFailed")<{ readonly info: FailureInfo }> {}

export interface ProcessedRecord {
  readonly output: RecordOutput
  readonly counts: Readonly<Record<string, number>>
}

export interface ProcessingOptions {
  /** Store vector columns as references to their answers (needs the answers to be stored). */
  readonly referenceAnswers: boolean
  /** The key a request's answer is stored under (default: its content key). */
  readonly keyOf?: (request: StageRequest) => string
  /** A stage's preparation of these fields made ahead (to read its answers in bulk), if any. */
  readonly preparedAhead?: (stage: Stage, fields: Fields) => Prepared | undefined
}

const fail = (stage: string, status: string, message: string, attempts = 0) =>
  new RecordFailed({ info: { stage, status, message, attempts } })

/** A vector value that is an answer, or a property of one, becomes a reference to it. */
const referenced = (value: unknown, answers: ReadonlyArray<unknown>, keys: ReadonlyArray<string>): AnswerRef | undefined => {
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

const nulls = (columns: ReadonlyArray<Column>): Record<string, unknown> => Object.fromEntries(columns.map((c) => [c.name, null]))

export const makeRecordProcessor = (pipeline: Pipeline, ask: Ask, options: ProcessingOptions) => {
  const allNull = nulls(pipeline.columns)

  interface StageResult {
    readonly rows: ReadonlyArray<Row>
    readonly stored: ReadonlyArray<Row>
    readonly keys: ReadonlyArray<string>
    readonly counts: Readonly<Record<string, number>> | undefined
  }

  /** Every answer in; the stage's rows out, or why the record fails. */
  const assembled = (stage: Stage, prepared: Prepared, answers: ReadonlyArray<unknown>, knownKeys?: ReadonlyArray<string>): StageResult | RecordFailed => {
    let rows: ReadonlyArray<Row>
    try {
      rows = prepared.assemble(answers)
    } catch (e) {
      return fail(stage.name, "assemble", `could not assemble the answers: ${(e as Error).message}`)
    }
    if (!stage.fanOut && rows.length !== 1) return fail(stage.name, "stage-contract", `a one-row stage assembled ${rows.length} rows`)
    const keyOf = options.keyOf
    const keys = knownKeys ?? prepared.requests.map((r) => (keyOf ? keyOf(r) : r.key))
    const vectors = options.referenceAnswers ? stage.columns.filter((c) => c.type._tag === "vector") : []
    const stored =
      vectors.length === 0
        ? rows
        : rows.map((row) => {
            const copy: Record<string, unknown> = { ...row }
            for (const c of vectors) {
              const ref = referenced(row[c.name], answers, keys)
              if (ref !== undefined) copy[c.name] = ref
            }
            return copy
          })
    return { rows, stored, keys, counts: prepared.counts }
  }

  /** The answers in (each settled); the stage's rows out (or why the record fails). Synchronous. */
  const finish = (
    stage: Stage,
    prepared: Prepared,
    settled: ReadonlyArray<Either.Either<unknown, RequestFailed | JobAborted>>
  ): Effect.Effect<StageResult, RecordFailed | JobAborted> => {
    const answers: Array<unknown> = []
    let failure: { readonly error: RequestFailed; readonly index: number } | undefined
    for (const [index, result] of settled.entries()) {
      if (result._tag === "Right") answers.push(result.right)
      else if (result.left._tag === "JobAborted") return Effect.fail(result.left)
      else failure ??= { error: result.left, index }
    }
    if (failure !== undefined) {
      const { error: e, index } = failure
      const label = prepared.requests[index]!.label
      return Effect.fail(fail(stage.name, e.status, label === undefined ? e.detail : `${label}: ${e.detail}`, e.attempts))
    }
    const result = assembled(stage, prepared, answers)
    return result instanceof RecordFailed ? Effect.fail(result) : Effect.succeed(result)
  }

  // Pipes, not generators: this runs for every record of every run (a warm rerun is all overhead).
  const prepare = (stage: Stage, fields: Fields): Effect.Effect<Prepared, RecordFailed> => {
    const ahead = options.preparedAhead?.(stage, fields)
    return ahead !== undefined ? Effect.succeed(ahead) : Effect.mapError(stage.prepare(fields), (e) => fail(stage.name, "input", e.message))
  }

  const runStage = (stage: Stage, fields: Fields): Effect.Effect<StageResult, RecordFailed | JobAborted> =>
    prepare(stage, fields).pipe(
      Effect.flatMap((prepared) =>
        // Every request runs to its end even when a sibling fails, so finished chunks are stored
        // for the retry; then the first failure (in request order) fails the record.
        (prepared.requests.length === 1
          ? Effect.map(Effect.either(ask(prepared.requests[0]!)), (r) => [r])
          : Effect.all(prepared.requests.map(ask), { concurrency: "unbounded", mode: "either" })
        ).pipe(Effect.flatMap((settled) => finish(stage, prepared, settled)))
      )
    )

  const [onlyStage] = pipeline.stages
  /** A one-stage pipeline's record (most jobs): the fold below with no generator, once per record. */
  const processOneStage =
    pipeline.stages.length === 1 && onlyStage !== undefined && onlyStage.when === undefined
      ? (input: Fields): Effect.Effect<ProcessedRecord, RecordFailed | RequestFailed | JobAborted> =>
          Effect.map(runStage(onlyStage, input), (done) => {
            const rows = onlyStage.fanOut
              ? done.stored.length === 0
                ? [{ ...allNull }]
                : done.stored.map((r) => ({ ...allNull, ...r }))
              : [{ ...allNull, ...done.stored[0] }]
            return { output: { keys: [...done.keys], rows }, counts: done.counts === undefined ? {} : { ...done.counts } }
          })
      : undefined

  const processRecord = (input: Fields): Effect.Effect<ProcessedRecord, RecordFailed | RequestFailed | JobAborted> =>
    processOneStage !== undefined ? processOneStage(input) : processStages(input)

  const processStages = (input: Fields): Effect.Effect<ProcessedRecord, RecordFailed | RequestFailed | JobAborted> =>
    Effect.gen(function* () {
      let fields = input
      let columns: Record<string, unknown> = { ...allNull }
      let fanned: ReadonlyArray<Row> | undefined
      const keys: Array<string> = []
      const counts: Record<string, number> = {}
      for (const stage of pipeline.stages) {
        if (stage.when !== undefined && !stage.when.test(fields)) {
          fields = { ...fields, ...nulls(stage.columns) }
          continue
        }
        const done = yield* runStage(stage, fields)
        keys.push(...done.keys)
        if (done.counts) for (const [k, v] of Object.entries(done.counts)) counts[k] = (counts[k] ?? 0) + v
        if (stage.fanOut) {
          // Zero rows would drop the record from the output: keep one row with null columns.
          fanned = done.stored.length === 0 ? [columns] : done.stored.map((r) => ({ ...columns, ...r }))
        } else {
          // Later stages read the values; the ledger keeps the references.
          columns = { ...columns, ...done.stored[0] }
          fields = { ...fields, ...done.rows[0] }
        }
      }
      return { output: { keys, rows: fanned ?? [columns] }, counts }
    })

  /**
   * A one-stage pipeline's record whose every answer is known (a warm rerun), prepared ahead:
   * the fold above without an Effect, so a window of such records costs no fiber each.
   */
  const processKnown = (stage: Stage, prepared: Prepared, answers: ReadonlyArray<unknown>, keys: ReadonlyArray<string>): ProcessedRecord | RecordFailed => {
    const done = assembled(stage, prepared, answers, keys)
    if (done instanceof RecordFailed) return done
    const rows = stage.fanOut ? (done.stored.length === 0 ? [allNull] : done.stored.map((r) => ({ ...allNull, ...r }))) : [{ ...allNull, ...done.stored[0] }]
    return { output: { keys: done.keys, rows }, counts: done.counts ?? {} }
  }

  return Object.assign(processRecord, { processKnown })
}
