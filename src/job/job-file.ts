/**
 * Job files: data (YAML or JSON) binding a pipeline — a named preset or a list of stages — to an
 * input, an output and limits, validated by a Schema whose errors name the file and the path of
 * the bad field. Defaults live in the Schema, once; the command line's overrides decode through
 * the same field Schemas (limits, retention), so a flag and a job file take the same bounds.
 */
import { Data, Either, ParseResult, Schema } from "effect"
import { readFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
// Bundled: @effect/cli bundles the same package for its config files, so this adds nothing to
// start-up (loading it from node_modules at the first job file cost ~40 ms).
import { parse as parseYaml } from "yaml"
import { EmulatorKnobs } from "../emulator/knobs.ts"
import { Encoding } from "../io/encoding.ts"
import { inputFormats } from "../io/sources/index.ts"
import { isPostgresUrl } from "../ledger/ledger-url.ts"
import { StoreSettings } from "../store/vector-store.ts"
import { ClusterSection } from "../cluster/cluster-settings.ts"
import { ExitCode } from "../exit-code.ts"

export class JobFileError extends Data.TaggedError("JobFileError")<{ readonly file: string; readonly detail: string }> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return `${this.file}: ${this.detail}`
  }
}

/**
 * A value given on the command line that its Schema refuses (the same Schema as the job file's
 * field it overrides), or that does not fit the job (an rpm for a model no stage uses).
 */
export class OptionError extends Data.TaggedError("OptionError")<{ readonly flag: string; readonly detail: string }> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return `${this.flag}: ${this.detail}`
  }
}

export const InputFormat = Schema.Literal(...inputFormats)
const PositiveInt = Schema.Int.pipe(Schema.positive())

export const CacheMode = Schema.Literal("read-write", "refresh", "off")

/** A PostgreSQL ledger's URL; a wrong one is refused without echoing it (it may hold a password). */
export const LedgerUrl = Schema.String.pipe(
  Schema.filter(isPostgresUrl, {
    message: () => "expected a postgres:// URL (postgres://user:password@host:5432/database)"
  })
)

/** Each limit's Schema, once: the job file's `limits:` and the command line's flags decode through these. */
const limitFields = {
  /** Requests per minute per model ("*" for every other model). */
  rpm: Schema.Record({ key: Schema.String, value: PositiveInt }),
  /** Most requests in flight per model. */
  concurrency: PositiveInt,
  /** Records in progress at once. */
  records: PositiveInt,
  /** Attempts per request (429s do not count). */
  maxAttempts: PositiveInt,
  /** After a stop, how long requests in flight may finish. */
  graceMs: Schema.NonNegativeInt
}

/** The limits a job file leaves out (also shown by `run --help`). */
export const limitDefaults = { concurrency: 32, records: 256, maxAttempts: 5, graceMs: 10_000 } as const

export const Limits = Schema.Struct({
  /** None: AIMD on 429s only. */
  rpm: Schema.optionalWith(limitFields.rpm, { default: () => ({}) }),
  concurrency: Schema.optionalWith(limitFields.concurrency, { default: () => limitDefaults.concurrency }),
  records: Schema.optionalWith(limitFields.records, { default: () => limitDefaults.records }),
  maxAttempts: Schema.optionalWith(limitFields.maxAttempts, { default: () => limitDefaults.maxAttempts }),
  graceMs: Schema.optionalWith(limitFields.graceMs, { default: () => limitDefaults.graceMs })
})
export type Limits = typeof Limits.Type

/** The limits as command-line overrides: the same Schemas, no defaults. */
export const LimitOverrides = Schema.Struct({
  rpm: Schema.optional(limitFields.rpm),
  concurrency: Schema.optional(limitFields.concurrency),
  records: Schema.optional(limitFields.records),
  maxAttempts: Schema.optional(limitFields.maxAttempts),
  graceMs: Schema.optional(limitFields.graceMs)
})

/** The flag of each overridable limit. */
export const limitFlags: Readonly<Record<keyof typeof LimitOverrides.Type, string>> = {
  rpm: "--rpm",
  concurrency: "--concurrency",
  records: "--records",
  maxAttempts: "--max-attempts",
  graceMs: "--grace-ms"
}

/** Command-line limits through the job file's Schemas; a refused value names its flag. */
export const decodeLimitOverrides = (
  raw: Readonly<Record<string, unknown>>
): Either.Either<typeof LimitOverrides.Type, OptionError> =>
  Either.mapLeft(Schema.decodeUnknownEither(LimitOverrides, { onExcessProperty: "error" })(defined(raw)), (error) => {
    const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
    const key = first?.path[0]
    const flag = typeof key === "string" && key in limitFlags ? limitFlags[key as keyof typeof limitFlags] : "option"
    const rest = first && first.path.length > 1 ? `${first.path.slice(1).join(".")}: ` : ""
    return new OptionError({ flag, detail: `${rest}${first?.message ?? String(error)}` })
  })
const defaultLimits: Limits = Schema.decodeUnknownSync(Limits)({})

/** The run report (moderation figures, changes since the last run) and its alert thresholds. */
export const ReportSettings = Schema.Struct({
  /** Write the report after every finished run. */
  enabled: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Characters of text per flagged record in the report; 0 keeps text out (sensitive corpora). */
  excerpt: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 80 }),
  /** An input column to break the verdicts down by (e.g. source, language). */
  breakdown: Schema.optional(Schema.NonEmptyString),
  /** Runs in the trend, this one included. */
  trendRuns: Schema.optionalWith(PositiveInt, { default: () => 7 }),
  /** Exit 4 when the run exceeds any of these (counted against the previous run). */
  fail: Schema.optional(
    Schema.Struct({
      newlyFlagged: Schema.optional(Schema.NonNegativeInt),
      categories: Schema.optional(
        Schema.Record({
          key: Schema.String.pipe(Schema.pattern(/^T([1-9]|1[0-2])$/, { message: () => "a category code, T1 to T12" })),
          value: Schema.NonNegativeInt
        })
      )
    })
  )
})
export type ReportSettings = typeof ReportSettings.Type
const defaultReport: ReportSettings = Schema.decodeUnknownSync(ReportSettings)({})

/** How much of its history a job's ledger keeps (applied after every finished run, and by `gc`). */
const retentionFields = {
  /** Runs whose per-record outcomes are kept (the newest; older runs keep only their statistics). */
  runs: Schema.Int.pipe(
    Schema.greaterThanOrEqualTo(2, { message: () => "at least 2: the report compares a run with the previous one" })
  ),
  /** Answers no kept record uses are deleted once older than this many days. */
  answerDays: Schema.NonNegativeInt
}

export const Retention = Schema.Struct({
  runs: Schema.optionalWith(retentionFields.runs, { default: () => 2 }),
  answerDays: Schema.optionalWith(retentionFields.answerDays, { default: () => 30 })
})
export type Retention = typeof Retention.Type
const defaultRetention: Retention = Schema.decodeUnknownSync(Retention)({})

/** `gc`'s flags for the job's retention: the job file's Schema, so both take the same bounds. */
const RetentionOverrides = Schema.Struct({
  runs: Schema.optional(retentionFields.runs),
  answerDays: Schema.optional(retentionFields.answerDays)
})
const retentionFlags = { runs: "--keep-runs", answerDays: "--answer-days" } as const

/** Command-line retention through the job file's Schemas; a refused value names its flag. */
export const decodeRetentionOverrides = (raw: {
  readonly runs?: number | undefined
  readonly answerDays?: number | undefined
}): Either.Either<typeof RetentionOverrides.Type, OptionError> =>
  Either.mapLeft(Schema.decodeUnknownEither(RetentionOverrides)(defined(raw)), (error) => {
    const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
    const key = first?.path[0]
    const flag =
      typeof key === "string" && key in retentionFlags ? retentionFlags[key as keyof typeof retentionFlags] : "option"
    return new OptionError({ flag, detail: first?.message ?? String(error) })
  })

/** One entry of `stages:`: `{ <stage type>: { options } }`, exactly one key. */
const StageEntry = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter(
    (e) =>
      Object.keys(e).length === 1 ||
      `a stage is one key, its type, e.g. "- translate: { fields: [body], to: en }" (got ${Object.keys(e).length} keys)`
  )
)

export const JobFile = Schema.Struct({
  name: Schema.String.pipe(
    Schema.pattern(/^[A-Za-z0-9._-]+$/, { message: () => "letters, digits, '.', '_' and '-' only" })
  ),
  description: Schema.optional(Schema.String),
  /** A preset of pipelines/ (with `fields`), or … */
  pipeline: Schema.optional(Schema.NonEmptyString),
  /** … the stages, listed. */
  stages: Schema.optional(Schema.Array(StageEntry).pipe(Schema.minItems(1))),
  input: Schema.Struct({
    path: Schema.NonEmptyString,
    format: Schema.optional(InputFormat),
    /** The text encoding of a CSV or JSONL input (Parquet is UTF-8 by definition). */
    encoding: Schema.optional(Encoding),
    /** CSV: a quote that never closes rejects its line and reading goes on (reject, the default), or stops the run (stop, exit 2). */
    unclosedQuote: Schema.optional(Schema.Literal("reject", "stop")),
    /** Column with a stable record id. */
    id: Schema.optional(Schema.NonEmptyString)
  }),
  output: Schema.Struct({
    path: Schema.NonEmptyString,
    /** A sink: csv, jsonl, parquet. */
    format: Schema.optional(Schema.NonEmptyString),
    rejects: Schema.optional(Schema.NonEmptyString)
  }),
  /** A vector store kept in step with the source (besides the dataset output). */
  store: Schema.optional(StoreSettings),
  /** A preset's inputs → columns of the input (one or several). */
  fields: Schema.optional(
    Schema.Record({
      key: Schema.String,
      value: Schema.Union(Schema.String, Schema.Array(Schema.String).pipe(Schema.minItems(1)))
    })
  ),
  limits: Schema.optionalWith(Limits, { default: () => defaultLimits }),
  cache: Schema.optionalWith(CacheMode, { default: () => "read-write" as const }),
  /** The ledger (SQLite) file. */
  state: Schema.optional(Schema.NonEmptyString),
  /** The ledger on a PostgreSQL server, shared by every machine that runs the job (instead of `state`). */
  ledger: Schema.optional(LedgerUrl),
  /** A run spread over machines: work units through PostgreSQL (src/cluster/). */
  cluster: Schema.optional(ClusterSection),
  /** `required`: run only against the real service (SVC_BASE_URL), never the embedded emulator. */
  service: Schema.optionalWith(Schema.Literal("required", "any"), { default: () => "any" as const }),
  report: Schema.optionalWith(ReportSettings, { default: () => defaultReport }),
  retention: Schema.optionalWith(Retention, { default: () => defaultRetention }),
  /** Knobs of the embedded emulator (src/emulator/knobs.ts); ignored when SVC_BASE_URL is set. */
  emulator: Schema.optional(EmulatorKnobs)
}).pipe(
  Schema.filter((job) => {
    if (job.pipeline !== undefined && job.stages !== undefined)
      return { path: ["stages"], message: "give either pipeline (a preset) or stages, not both" }
    if (job.state !== undefined && job.ledger !== undefined)
      return { path: ["ledger"], message: "give either state (a SQLite file) or ledger (a postgres:// URL), not both" }
    if (job.pipeline === undefined && job.stages === undefined)
      return { path: ["pipeline"], message: "required: a preset name, or a stages list instead" }
    if (job.stages !== undefined && job.fields !== undefined)
      return { path: ["fields"], message: "fields maps a preset's inputs; with stages, each stage names its fields" }
    return true
  })
)
export type JobFile = typeof JobFile.Type

const decode = Schema.decodeUnknownEither(JobFile, { onExcessProperty: "error", errors: "all" })

/** `a.b.0: message` lines of a parse error, unknown fields named as such. */
export const describeIssues = (error: ParseResult.ParseError, prefix: ReadonlyArray<PropertyKey> = []): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  // An optional section with a bad field also fails the section's "or absent" branch: noise.
  const useful = issues.filter(
    (i) =>
      !(i.message.startsWith("Expected undefined,") && issues.some((j) => j !== i && j.path.length > i.path.length))
  )
  // A value that matches no member of a union fails each member: one line with the allowed values.
  const lines = new Map<
    string,
    {
      readonly path: string
      readonly expected: Array<string>
      actual: string | undefined
      readonly others: Array<string>
    }
  >()
  for (const i of useful) {
    const path = [...prefix, ...i.path]
    const key = path.length ? path.join(".") : "(top level)"
    const line = lines.get(key) ?? { path: key, expected: [], actual: undefined, others: [] }
    lines.set(key, line)
    const m = i._tag === "Type" ? /^Expected (.+), actual (.+)$/s.exec(i.message) : null
    if (m && (line.actual === undefined || line.actual === m[2])) {
      if (!line.expected.includes(m[1]!)) line.expected.push(m[1]!)
      line.actual = m[2]
    } else line.others.push(i._tag === "Unexpected" ? "unknown field" : i.message)
  }
  return [...lines.values()]
    .flatMap((l) => {
      // An optional field's "or absent" branch is no help for a value that is there.
      const expected =
        l.expected.length > 1 || l.others.length > 0 ? l.expected.filter((e) => e !== "undefined") : l.expected
      return [
        ...(expected.length ? [`${l.path}: Expected ${expected.join(" | ")}, actual ${l.actual}`] : []),
        ...l.others.map((m) => `${l.path}: ${m}`)
      ]
    })
    .join("; ")
}

/** Reads, parses and validates a job file; every problem names the file and the field. */
export const loadJobFile = (
  file: string
): Either.Either<{ readonly job: JobFile; readonly dir: string }, JobFileError> => {
  let text: string
  try {
    text = readFileSync(file, "utf8")
  } catch (e) {
    return Either.left(new JobFileError({ file, detail: `cannot read: ${(e as Error).message}` }))
  }
  const json = /\.json$/i.test(file)
  let data: unknown
  try {
    data = json ? JSON.parse(text) : parseYaml(text)
  } catch (e) {
    return Either.left(
      new JobFileError({ file, detail: `not valid ${json ? "JSON" : "YAML"}: ${(e as Error).message}` })
    )
  }
  return Either.match(decode(data), {
    onLeft: (error) => Either.left(new JobFileError({ file, detail: describeIssues(error) })),
    onRight: (job) => Either.right({ job, dir: dirname(resolve(file)) })
  })
}

/** The fields given (a flag not given is undefined). */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}
