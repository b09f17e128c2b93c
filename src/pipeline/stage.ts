/**
 * The stage contract (v2). A stage prepares a record: `prepare(fields)` returns the requests it
 * needs and an `assemble(answers)` closure that turns their answers (in request order) into the
 * record's output rows. The layout (which field, chunk or batch an answer belongs to) travels in
 * that closure, so nothing is recomputed. Requests are plain data with a content key, so a plan
 * can price a job without sending anything; each names the Schema of what the ledger stores for
 * it. The runner knows nothing else about a stage.
 */
import { Data, type Effect, Either, type Schema } from "effect"
import type { Column } from "./columns.ts"
import type { TextService } from "../service/client.ts"
import type { Endpoint, ServiceError } from "../service/errors.ts"
import type { Condition } from "./condition.ts"
import { contentKey } from "./content-key.ts"
import { ExitCode } from "../exit-code.ts"

export type Fields = Readonly<Record<string, unknown>>
/** One output row of a record: the stages' columns (input fields are joined in at output). */
export type Row = Readonly<Record<string, unknown>>

export interface Answered<A> {
  readonly value: A
  readonly tokens: number
}

/** What `send` may fail with besides the service's errors (e.g. invalid structured output). */
export type SendError = ServiceError | { readonly _tag: string; readonly message: string; readonly retryable: boolean }

/**
 * The Schema of a stored answer. Its encoded side must be JSON.
 * any: Schema is invariant in its encoded type, and what it encodes to is the schema's own business.
 */
export type AnswerSchema<A> = Schema.Schema<A, any>

export interface StageRequest<A = unknown> {
  readonly endpoint: Endpoint
  /** Limiter key: the model (translate: "translate"). */
  readonly model: string
  /** Everything besides the text that changes the answer; part of the content key. */
  readonly params: unknown
  readonly text: string
  /** Names the request in a failure (e.g. "body chunk 2/3"); not part of the content key. */
  readonly label?: string
  /** Content key: endpoint, model, canonical parameters and text. */
  readonly key: string
  /** What the ledger stores for this request, and how it is read back. */
  readonly answer: AnswerSchema<A>
  readonly send: (service: TextService) => Effect.Effect<Answered<A>, SendError>
}

/** A request with its content key computed. */
export const makeRequest = <A>(spec: Omit<StageRequest<A>, "key">): StageRequest<A> => {
  // Field by field, not `{ ...spec, key }`: a request per record on a warm rerun, and on Node 20
  // the spread took ~1 µs of it (0.06 µs so).
  const request: StageRequest<A> = {
    endpoint: spec.endpoint,
    model: spec.model,
    params: spec.params,
    text: spec.text,
    key: contentKey(spec),
    answer: spec.answer,
    send: spec.send
  }
  return spec.label === undefined ? request : { ...request, label: spec.label }
}

export interface Prepared {
  readonly requests: ReadonlyArray<StageRequest>
  /** Answers, in request order → the record's output rows (one, or several for a fan-out stage). */
  readonly assemble: (answers: ReadonlyArray<unknown>) => ReadonlyArray<Row>
  /** Stage counters this record adds to the run's statistics (e.g. translate_skipped). */
  readonly counts?: Readonly<Record<string, number>>
  /**
   * `assemble` only places each answer, unread, in a vector column: where the record refers to its
   * stored answers, their presence is enough (a backfill's rerun reads no vector).
   */
  readonly placesAnswers?: true
}

/**
 * A prepared record whose answers are typed for the stage's author. The one place the type is
 * erased: every answer reaching `assemble` was produced by, or decoded through, its request's
 * own `answer` Schema, so the runtime type is `A`.
 */
export const prepared = <A>(
  requests: ReadonlyArray<StageRequest<A>>,
  assemble: (answers: ReadonlyArray<A>) => ReadonlyArray<Row>,
  counts?: Readonly<Record<string, number>>
): Prepared => ({
  requests: requests as unknown as ReadonlyArray<StageRequest>,
  assemble: assemble as (answers: ReadonlyArray<unknown>) => ReadonlyArray<Row>,
  ...(counts ? { counts } : {})
})

/** A record the stage cannot work on (e.g. a missing field): it fails without a request. */
export class StageInputError extends Data.TaggedError("StageInputError")<{ readonly message: string }> {}

export interface Stage {
  readonly name: string
  /** Fields it reads: input columns or earlier stages' columns. */
  readonly reads: ReadonlyArray<string>
  /** Typed output columns it adds. */
  readonly columns: ReadonlyArray<Column>
  /** The option that names a column, where one does (a clash of column names says what to set). */
  readonly namedBy?: Readonly<Record<string, string>>
  /** May produce several rows per record (chunks); only the last stage of a pipeline may. */
  readonly fanOut?: boolean
  /** Run the stage for a record only when this holds; otherwise its columns are null. */
  readonly when?: Condition
  /** The endpoints and models its requests use (for `svc-batch check`, and `search`'s model). */
  readonly calls: ReadonlyArray<{ readonly endpoint: Endpoint; readonly model: string }>
  /**
   * Synchronous, with no I/O: the runner prepares a window of records ahead in the reading fiber
   * (an Effect per record would cost a fiber each on a warm rerun). A stage that needs a file or a
   * lookup does it when it is built (as `generate` loads its schema file).
   */
  readonly prepare: (fields: Fields) => Prepared | StageInputError
}

export interface Pipeline {
  readonly name: string
  readonly description: string
  readonly stages: ReadonlyArray<Stage>
  /** Every stage's columns, in order. */
  readonly columns: ReadonlyArray<Column>
}

/** Every model the pipeline's stages send to; undefined when a stage does not say (no calls declared). */
export const pipelineModels = (pipeline: Pipeline): ReadonlyArray<string> | undefined => {
  const models = new Set<string>()
  for (const stage of pipeline.stages) {
    if (stage.calls.length === 0) return undefined
    for (const c of stage.calls) models.add(c.model)
  }
  return [...models]
}

export class PipelineError extends Data.TaggedError("PipelineError")<{
  readonly pipeline: string
  readonly detail: string
}> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return `pipeline ${this.pipeline}: ${this.detail}`
  }
}

/**
 * Builds a pipeline, refusing one that could lose data or read what nothing provides:
 * - a fan-out stage followed by another stage (its rows would be lost);
 * - two stages writing the same column;
 * - a stage reading, or a `when` testing, a column that a later stage (or the stage itself) adds.
 */
export const makePipeline = (
  name: string,
  description: string,
  stages: ReadonlyArray<Stage>
): Either.Either<Pipeline, PipelineError> => {
  const fail = (detail: string) => Either.left(new PipelineError({ pipeline: name, detail }))
  if (stages.length === 0) return fail("no stages")
  const producer = new Map<string, number>()
  stages.forEach((s, i) => s.columns.forEach((c) => producer.has(c.name) || producer.set(c.name, i)))
  const seen = new Map<string, string>()
  for (const [i, stage] of stages.entries()) {
    const label = `stage ${i + 1} (${stage.name})`
    if (stage.fanOut && i < stages.length - 1) {
      return fail(
        `${label} produces several rows per record; only the last stage may, and ${stages.length - 1 - i} stage(s) follow it (their columns would be lost for all but one row). Move it to the end.`
      )
    }
    for (const c of stage.columns) {
      const other = seen.get(c.name)
      if (other !== undefined) {
        const option = stage.namedBy?.[c.name]
        const fix = option === undefined ? "" : `: set ${option} on ${label} to another name`
        return fail(`${label} adds column ${c.name}, which ${other} already adds${fix}`)
      }
      seen.set(c.name, label)
    }
    const uses = [
      ...stage.reads.map((c) => ["reads", c] as const),
      ...(stage.when?.columns ?? []).map((c) => ["when tests", c] as const)
    ]
    for (const [what, c] of uses) {
      const by = producer.get(c)
      if (by !== undefined && by >= i) {
        return fail(
          `${label} ${what} ${c}, which ${by === i ? "it adds itself" : `stage ${by + 1} (${stages[by]!.name}) adds after it`}`
        )
      }
    }
  }
  return Either.right({ name, description, stages, columns: stages.flatMap((s) => s.columns) })
}
