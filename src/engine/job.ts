/**
 * Job files: data (YAML or JSON) binding a pipeline to an input, an output, field mapping and
 * limits, validated by a Schema whose errors name the file and the path of the bad field.
 * Relative paths in a job file are relative to the job file's folder.
 */
import { Data, Either, ParseResult, Schema } from "effect"
import { readFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { parse as parseYaml } from "yaml"

export class JobFileError extends Data.TaggedError("JobFileError")<{ readonly file: string; readonly detail: string }> {
  override get message() {
    return `${this.file}: ${this.detail}`
  }
}

const Format = Schema.Literal("csv", "jsonl", "parquet")
const PositiveInt = Schema.Int.pipe(Schema.positive())
const Rate = Schema.Number.pipe(Schema.between(0, 1))

/** Emulator knobs for the embedded emulator (used only when SVC_BASE_URL is not set). */
const EmulatorKnobs = Schema.Struct({
  rpm: Schema.optional(Schema.Union(PositiveInt, Schema.Record({ key: Schema.String, value: PositiveInt }))),
  burst: Schema.optional(PositiveInt),
  latencyMs: Schema.optional(Schema.NonNegativeInt),
  jitterMs: Schema.optional(Schema.NonNegativeInt),
  error500Rate: Schema.optional(Rate),
  error503Rate: Schema.optional(Rate),
  resetRate: Schema.optional(Rate),
  cutStreamRate: Schema.optional(Rate),
  slowRate: Schema.optional(Rate),
  slowMs: Schema.optional(Schema.NonNegativeInt),
  faultSeed: Schema.optional(Schema.Int)
})

export const JobFile = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._-]+$/, { message: () => "letters, digits, '.', '_' and '-' only" })),
  description: Schema.optional(Schema.String),
  pipeline: Schema.NonEmptyString,
  input: Schema.Struct({
    path: Schema.NonEmptyString,
    format: Schema.optional(Format),
    /** Column with a stable record id. */
    id: Schema.optional(Schema.NonEmptyString)
  }),
  output: Schema.Struct({
    path: Schema.NonEmptyString,
    format: Schema.optional(Format),
    rejects: Schema.optional(Schema.NonEmptyString)
  }),
  /** The pipeline's inputs → columns of the input (one or several). */
  fields: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Array(Schema.String).pipe(Schema.minItems(1))) }),
  limits: Schema.optional(
    Schema.Struct({
      /** Requests per minute per model ("*" for every other model). */
      rpm: Schema.optional(Schema.Record({ key: Schema.String, value: PositiveInt })),
      /** Most requests in flight per model. */
      concurrency: Schema.optional(PositiveInt),
      /** Records in progress at once. */
      records: Schema.optional(PositiveInt),
      maxAttempts: Schema.optional(PositiveInt),
      graceMs: Schema.optional(Schema.NonNegativeInt)
    })
  ),
  cache: Schema.optional(Schema.Literal("read-write", "refresh", "off")),
  /** The ledger (SQLite) file. */
  state: Schema.optional(Schema.NonEmptyString),
  emulator: Schema.optional(EmulatorKnobs)
})
export type JobFile = typeof JobFile.Type

const decode = Schema.decodeUnknownEither(JobFile, { onExcessProperty: "error", errors: "all" })

/** Reads, parses and validates a job file; every problem names the file and the field. */
export const loadJobFile = (file: string): Either.Either<{ readonly job: JobFile; readonly dir: string }, JobFileError> => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    return Either.left(new JobFileError({ file, detail: `cannot read: ${(e as Error).message}` }))
  }
  let data: unknown
  try {
    data = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text)
  } catch (e) {
    return Either.left(new JobFileError({ file, detail: `not valid ${/\.json$/i.test(file) ? "JSON" : "YAML"}: ${(e as Error).message}` }))
  }
  return Either.match(decode(data), {
    onLeft: (error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map(
        (i) => `${i.path.length ? i.path.join(".") : "(top level)"}: ${i._tag === "Unexpected" ? "unknown field" : i.message}`
      )
      return Either.left(new JobFileError({ file, detail: issues.join("; ") }))
    },
    onRight: (job) => Either.right({ job, dir: dirname(resolve(file)) })
  })
}

/** A path of the job file, resolved against its folder. */
export const jobPath = (dir: string, path: string) => resolve(dir, path)
