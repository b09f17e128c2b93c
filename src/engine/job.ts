/**
 * Job files: data (YAML or JSON) binding a pipeline — a named preset or a list of stages — to an
 * input, an output and limits, validated by a Schema whose errors name the file and the path of
 * the bad field. Defaults live in the Schema, once. `resolveJob` is the one place a job becomes
 * concrete settings (paths resolved against the job file's folder, command-line overrides
 * applied), so every command reads a job the same way.
 */
import { Data, Effect, Either, ParseResult, Schema } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { basename, dirname, extname, join, resolve } from "node:path"
// Bundled: @effect/cli bundles the same package for its config files, so this adds nothing to
// start-up (loading it from node_modules at the first job file cost ~40 ms).
import { parse as parseYaml } from "yaml"
import { EmulatorKnobs } from "../emulator/knobs.ts"
import { type Format, formatOf } from "../io/source.ts"
import { DefaultEncoding, Encoding } from "../io/encoding.ts"
import { StoreSettings } from "../store/vector-store.ts"
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

export const InputFormat = Schema.Literal("csv", "jsonl", "parquet")
const PositiveInt = Schema.Int.pipe(Schema.positive())

export const CacheMode = Schema.Literal("read-write", "refresh", "off")

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

export const Limits = Schema.Struct({
  /** None: AIMD on 429s only. */
  rpm: Schema.optionalWith(limitFields.rpm, { default: () => ({}) }),
  concurrency: Schema.optionalWith(limitFields.concurrency, { default: () => 32 }),
  records: Schema.optionalWith(limitFields.records, { default: () => 256 }),
  maxAttempts: Schema.optionalWith(limitFields.maxAttempts, { default: () => 5 }),
  graceMs: Schema.optionalWith(limitFields.graceMs, { default: () => 10_000 })
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
export const decodeLimitOverrides = (raw: Readonly<Record<string, unknown>>): Either.Either<typeof LimitOverrides.Type, OptionError> =>
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
      categories: Schema.optional(Schema.Record({ key: Schema.String.pipe(Schema.pattern(/^T([1-9]|1[0-2])$/, { message: () => "a category code, T1 to T12" })), value: Schema.NonNegativeInt }))
    })
  )
})
export type ReportSettings = typeof ReportSettings.Type
const defaultReport: ReportSettings = Schema.decodeUnknownSync(ReportSettings)({})

/** How much of its history a job's ledger keeps (applied after every finished run, and by `gc`). */
export const Retention = Schema.Struct({
  /** Runs whose per-record outcomes are kept (the newest; older runs keep only their statistics). */
  runs: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(2, { message: () => "at least 2: the report compares a run with the previous one" })), { default: () => 2 }),
  /** Answers no kept record uses are deleted once older than this many days. */
  answerDays: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 30 })
})
export type Retention = typeof Retention.Type
const defaultRetention: Retention = Schema.decodeUnknownSync(Retention)({})

/** One entry of `stages:`: `{ <stage type>: { options } }`, exactly one key. */
const StageEntry = Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
  Schema.filter((e) => Object.keys(e).length === 1 || `a stage is one key, its type, e.g. "- translate: { fields: [body], to: en }" (got ${Object.keys(e).length} keys)`)
)

export const JobFile = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9._-]+$/, { message: () => "letters, digits, '.', '_' and '-' only" })),
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
  fields: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Array(Schema.String).pipe(Schema.minItems(1))) })),
  limits: Schema.optionalWith(Limits, { default: () => defaultLimits }),
  cache: Schema.optionalWith(CacheMode, { default: () => "read-write" as const }),
  /** The ledger (SQLite) file. */
  state: Schema.optional(Schema.NonEmptyString),
  /** `required`: run only against the real service (SVC_BASE_URL), never the embedded emulator. */
  service: Schema.optionalWith(Schema.Literal("required", "any"), { default: () => "any" as const }),
  report: Schema.optionalWith(ReportSettings, { default: () => defaultReport }),
  retention: Schema.optionalWith(Retention, { default: () => defaultRetention }),
  /** Knobs of the embedded emulator (src/emulator/knobs.ts); ignored when SVC_BASE_URL is set. */
  emulator: Schema.optional(EmulatorKnobs)
}).pipe(
  Schema.filter((job) => {
    if (job.pipeline !== undefined && job.stages !== undefined) return { path: ["stages"], message: "give either pipeline (a preset) or stages, not both" }
    if (job.pipeline === undefined && job.stages === undefined) return { path: ["pipeline"], message: "required: a preset name, or a stages list instead" }
    if (job.stages !== undefined && job.fields !== undefined) return { path: ["fields"], message: "fields maps a preset's inputs; with stages, each stage names its fields" }
    return true
  })
)
export type JobFile = typeof JobFile.Type

const decode = Schema.decodeUnknownEither(JobFile, { onExcessProperty: "error", errors: "all" })

/** `a.b.0: message` lines of a parse error, unknown fields named as such. */
export const describeIssues = (error: ParseResult.ParseError, prefix: ReadonlyArray<PropertyKey> = []): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  // An optional section with a bad field also fails the section's "or absent" branch: noise.
  const useful = issues.filter((i) => !(i.message.startsWith("Expected undefined,") && issues.some((j) => j !== i && j.path.length > i.path.length)))
  // A value that matches no member of a union fails each member: one line with the allowed values.
  const lines = new Map<string, { readonly path: string; readonly expected: Array<string>; actual: string | undefined; readonly others: Array<string> }>()
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
      const expected = l.expected.length > 1 || l.others.length > 0 ? l.expected.filter((e) => e !== "undefined") : l.expected
      return [...(expected.length ? [`${l.path}: Expected ${expected.join(" | ")}, actual ${l.actual}`] : []), ...l.others.map((m) => `${l.path}: ${m}`)]
    })
    .join("; ")
}

/** Reads, parses and validates a job file; every problem names the file and the field. */
export const loadJobFile = (file: string): Either.Either<{ readonly job: JobFile; readonly dir: string }, JobFileError> => {
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
    return Either.left(new JobFileError({ file, detail: `not valid ${json ? "JSON" : "YAML"}: ${(e as Error).message}` }))
  }
  return Either.match(decode(data), {
    onLeft: (error) => Either.left(new JobFileError({ file, detail: describeIssues(error) })),
    onRight: (job) => Either.right({ job, dir: dirname(resolve(file)) })
  })
}

/** What the command line may override in a job. */
export interface JobOverrides {
  readonly input?: string | undefined
  readonly inputFormat?: Format | undefined
  readonly inputEncoding?: Encoding | undefined
  readonly output?: string | undefined
  readonly outputFormat?: string | undefined
  readonly rejects?: string | undefined
  readonly state?: string | undefined
  readonly rpm?: Readonly<Record<string, number>> | undefined
  readonly concurrency?: number | undefined
  readonly records?: number | undefined
  readonly maxAttempts?: number | undefined
  readonly graceMs?: number | undefined
  readonly cache?: typeof CacheMode.Type | undefined
}

export interface ResolvedJob {
  readonly file: string
  readonly job: JobFile
  readonly name: string
  readonly input: {
    readonly path: string
    readonly format: Format
    readonly encoding: Encoding
    readonly id: string | undefined
    readonly unclosedQuote: "reject" | "stop" | undefined
  }
  /** `format` names a sink. */
  readonly output: { readonly path: string; readonly format: string }
  readonly rejects: string
  /** The vector store, its path absolute. */
  readonly store: StoreSettings | undefined
  readonly state: string
  /** The ledger was found at its former default place (beside the output), not yet moved. */
  readonly formerDefaultState?: { readonly path: string; readonly moveTo: string }
  readonly limits: Limits
  readonly cache: typeof CacheMode.Type
}

/**
 * Where a job's ledger lives unless `state:` / `--state` says otherwise: beside the job file, in
 * `.svc-batch/<name>.ledger.sqlite`. It depends on the job only, never on `--output`: a nightly
 * run pointed at a dated output folder reuses last night's answers.
 */
export const defaultLedgerPath = (jobDir: string, name: string): string => join(jobDir, ".svc-batch", `${name}.ledger.sqlite`)

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

/**
 * A job file with the command line's overrides applied: paths absolute (a job's relative to its
 * folder, an override's to the working directory), formats decided, defaults filled in.
 */
export const resolveJob = (
  file: string,
  overrides: JobOverrides = {},
  /** A report can be rebuilt without the input; a run cannot. */
  options: { readonly inputMustExist: boolean } = { inputMustExist: true }
): Effect.Effect<ResolvedJob, JobFileError | OptionError> =>
  Effect.gen(function* () {
    const limits = yield* decodeLimitOverrides({ rpm: overrides.rpm, concurrency: overrides.concurrency, records: overrides.records, maxAttempts: overrides.maxAttempts, graceMs: overrides.graceMs })
    const { job, dir } = yield* loadJobFile(file)
    const fromJob = (path: string) => resolve(dir, path)
    const fromCli = (path: string) => resolve(path)
    const input = overrides.input !== undefined ? fromCli(overrides.input) : fromJob(job.input.path)
    if (options.inputMustExist && !existsSync(input)) {
      // Blamed on where the path came from: the flag, or the job file.
      const detail = `input file not found: ${input}`
      return yield* overrides.input !== undefined ? new OptionError({ flag: "--input", detail }) : new JobFileError({ file, detail })
    }
    const inputFormat = overrides.inputFormat ?? formatOf(input, job.input.format)
    if (inputFormat === undefined) {
      return yield* new JobFileError({ file, detail: `${input}: cannot tell the format from the extension; set input.format or --input-format` })
    }
    const output = overrides.output !== undefined ? fromCli(overrides.output) : fromJob(job.output.path)
    const outputFormat = overrides.outputFormat ?? job.output.format ?? formatOf(output) ?? inputFormat
    const stem = join(dirname(output), basename(output, extname(output)))
    const rejects = overrides.rejects !== undefined ? fromCli(overrides.rejects) : job.output.rejects ? fromJob(job.output.rejects) : `${stem}.rejects.jsonl`
    const defaulted = overrides.state === undefined && job.state === undefined
    const fresh = defaultLedgerPath(dir, job.name)
    // A ledger at the former default place (beside the output) is used until it is moved: an
    // upgrade must not re-ask what it already holds.
    const former = defaulted && !existsSync(fresh)
      ? [dirname(output), dirname(fromJob(job.output.path))].map((d) => join(d, `${job.name}.ledger.sqlite`)).find((p) => existsSync(p))
      : undefined
    const state = overrides.state !== undefined ? fromCli(overrides.state) : job.state ? fromJob(job.state) : former ?? fresh
    return {
      file,
      job,
      name: job.name,
      input: { path: input, format: inputFormat, encoding: overrides.inputEncoding ?? job.input.encoding ?? DefaultEncoding, id: job.input.id, unclosedQuote: job.input.unclosedQuote },
      output: { path: output, format: outputFormat },
      rejects,
      store: job.store === undefined ? undefined : { ...job.store, path: fromJob(job.store.path) },
      state,
      ...(former !== undefined ? { formerDefaultState: { path: former, moveTo: fresh } } : {}),
      limits: { ...job.limits, ...limits },
      cache: overrides.cache ?? job.cache
    } satisfies ResolvedJob
  })

/**
 * An rpm for a model that no stage of the pipeline sends to is a typo, never a wish: the problem
 * (naming the models that are used), or undefined. `*` (every other model) always fits. Unknown
 * when a stage does not declare its models (then nothing is checked).
 */
export const unusedRpmModels = (rpm: Readonly<Record<string, number>>, used: ReadonlyArray<string> | undefined): string | undefined => {
  if (used === undefined) return undefined
  const unused = Object.keys(rpm).filter((model) => model !== "*" && !used.includes(model))
  if (unused.length === 0) return undefined
  return `${unused.map((m) => JSON.stringify(m)).join(", ")}: no stage of this job uses ${unused.length === 1 ? "this model" : "these models"} (used: ${used.join(", ")}; "*" for every other)`
}
