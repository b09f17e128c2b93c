/**
 * How a stage is named in a job file's `stages:` list: its type name, a Schema of its options
 * (unknown option → an error naming the file and the path), and a constructor. `when`, a
 * condition over columns, is common to every stage and handled here.
 */
import { Either, Schema } from "effect"
import { dirname, resolve } from "node:path"
import { type Condition, parseCondition } from "../engine/condition.ts"
import { describeIssues, JobFileError } from "../job/job-file.ts"
import type { Stage } from "../engine/stage.ts"

export interface StageType<O> {
  readonly name: string
  readonly description: string
  /**
   * The stage's options (besides `when`).
   * any: the encoded side is whatever YAML/JSON gives; only the decoded options matter.
   */
  readonly options: Schema.Schema<O, any>
  /** `context.dir`: the job file's folder (a stage's file options are relative to it). */
  readonly make: (options: O, when: Condition | undefined, context: StageContext) => Stage | string
}

/** Where a stage is declared. */
export interface StageContext {
  readonly dir: string
}

export const defineStageType = <O>(t: StageType<O>): StageType<O> => t

/** any: a registry holds stage types of different option types; each decodes its own. */
export type AnyStageType = StageType<any>

/** `fields: body` or `fields: [title, body]`. */
export const FieldList = Schema.Union(
  Schema.NonEmptyString.pipe(Schema.transform(Schema.Array(Schema.String), { strict: true, decode: (s) => [s], encode: (a) => a[0] ?? "" })),
  Schema.Array(Schema.NonEmptyString).pipe(Schema.minItems(1))
)

/** `{ translate: { fields: [body], to: en, when: "…" } }` at `stages.<index>` → a stage. */
export const stageFromEntry = <O>(type: StageType<O>, raw: unknown, file: string, index: number): Either.Either<Stage, JobFileError> => {
  const at = ["stages", index, type.name]
  const fail = (detail: string) => Either.left(new JobFileError({ file, detail }))
  if (raw !== null && raw !== undefined && (typeof raw !== "object" || Array.isArray(raw))) return fail(`${at.join(".")}: expected the stage's options as a mapping`)
  const { when, ...rest } = (raw ?? {}) as Record<string, unknown>
  let condition: Condition | undefined
  if (when !== undefined) {
    if (typeof when !== "string") return fail(`${at.join(".")}.when: expected an expression in a string, e.g. "moderation_verdict == 'safe'"`)
    const parsed = parseCondition(when)
    if (Either.isLeft(parsed)) return fail(`${at.join(".")}.when: ${parsed.left.message}`)
    condition = parsed.right
  }
  const options = Schema.decodeUnknownEither(type.options, { onExcessProperty: "error", errors: "all" })(rest)
  if (Either.isLeft(options)) return fail(describeIssues(options.left, at))
  const stage = type.make(options.right, condition, { dir: dirname(resolve(file)) })
  return typeof stage === "string" ? fail(`${at.join(".")}.${stage}`) : Either.right(stage)
}
