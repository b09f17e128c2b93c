/**
 * How a stage is named in a job file's `stages:` list: its type name, a Schema of its options
 * (unknown option → an error naming the file and the path), and a constructor. `when`, a
 * condition over columns, is common to every stage; a job's entry is read by `stageFromEntry`
 * (pipelines/index.ts), beside the job file it belongs to.
 */
import { Schema } from "effect"
import type { Condition } from "./condition.ts"
import type { Stage } from "./stage.ts"

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
  Schema.NonEmptyString.pipe(
    Schema.transform(Schema.Array(Schema.String), { strict: true, decode: (s) => [s], encode: (a) => a[0] ?? "" })
  ),
  Schema.Array(Schema.NonEmptyString).pipe(Schema.minItems(1))
)
