/**
 * `resolveJob`: the one place a job becomes concrete settings (paths resolved against the job
 * file's folder, command-line overrides applied), so every command reads a job the same way.
 */
import { Config, Effect, Option, Redacted } from "effect"
import { existsSync } from "node:fs"
import { basename, dirname, extname, join, resolve } from "node:path"
import { type Format, formatOf } from "../io/sources/index.ts"
import { DefaultEncoding, type Encoding } from "../io/encoding.ts"
import type { StoreSettings } from "../store/vector-store.ts"
import { isPostgresUrl, redactUrl } from "../ledger/ledger-url.ts"
import { type ClusterSettings, clusterSettings } from "../cluster/cluster-settings.ts"
import { envProvider } from "../service/config.ts"
import {
  type CacheMode,
  decodeLimitOverrides,
  type JobFile,
  JobFileError,
  type Limits,
  loadJobFile,
  OptionError
} from "./job-file.ts"

/** What the command line may override in a job. */
export interface JobOverrides {
  readonly input?: string | undefined
  readonly inputFormat?: Format | undefined
  readonly inputEncoding?: Encoding | undefined
  readonly output?: string | undefined
  readonly outputFormat?: string | undefined
  readonly rejects?: string | undefined
  readonly state?: string | undefined
  /** `--ledger`: a PostgreSQL ledger's URL. */
  readonly ledger?: string | undefined
  /** `--cluster`: the PostgreSQL of a cluster run (its ledger and its queue of units). */
  readonly cluster?: string | undefined
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
  /** The SQLite ledger's file; with a PostgreSQL ledger, where this machine keeps the job's lock file. */
  readonly state: string
  /** The PostgreSQL ledger (`--ledger`, SVC_BATCH_LEDGER_URL or the job's `ledger`); none: SQLite at `state`. */
  readonly ledgerUrl: Redacted.Redacted<string> | undefined
  /** A cluster run (`--cluster` or the job's `cluster.url`): its URL is the ledger's too. */
  readonly cluster?: (ClusterSettings & { readonly url: Redacted.Redacted<string> }) | undefined
  /** The ledger was found at its former default place (beside the output), not yet moved. */
  readonly formerDefaultState?: { readonly path: string; readonly moveTo: string }
  readonly limits: Limits
  /** `limits.rpm` came from `--rpm` (a problem with it names the flag, not the job file). */
  readonly rpmFromFlag: boolean
  readonly cache: typeof CacheMode.Type
}

/**
 * Where a job's ledger lives unless `state:` / `--state` says otherwise: beside the job file, in
 * `.svc-batch/<name>.ledger.sqlite`. It depends on the job only, never on `--output`: a nightly
 * run pointed at a dated output folder reuses last night's answers.
 */
export const defaultLedgerPath = (jobDir: string, name: string): string =>
  join(jobDir, ".svc-batch", `${name}.ledger.sqlite`)

/** The job's ledger as messages name it: its file, or its server's URL without the password. */
export const ledgerName = (job: Pick<ResolvedJob, "state" | "ledgerUrl">): string =>
  job.ledgerUrl === undefined ? job.state : redactUrl(Redacted.value(job.ledgerUrl))

/** Whether the job's ledger may hold runs: a SQLite file that exists; a server is asked when opened. */
export const ledgerMayExist = (job: Pick<ResolvedJob, "state" | "ledgerUrl">): boolean =>
  job.ledgerUrl !== undefined || existsSync(job.state)

const LEDGER_ENV = "SVC_BATCH_LEDGER_URL"

/**
 * The PostgreSQL ledger's URL, if any, by precedence: `--ledger` (`--state` instead: SQLite),
 * SVC_BATCH_LEDGER_URL (environment, then `.env`), the job's `ledger` (its `state` instead: SQLite).
 */
const chooseLedgerUrl = (overrides: JobOverrides, job: JobFile) =>
  Effect.gen(function* () {
    if (overrides.ledger !== undefined) {
      if (overrides.state !== undefined)
        return yield* new OptionError({
          flag: "--ledger",
          detail: "give either --state (a SQLite file) or --ledger (a postgres:// URL), not both"
        })
      if (!isPostgresUrl(overrides.ledger))
        return yield* new OptionError({
          flag: "--ledger",
          detail: "expected a postgres:// URL (postgres://user:password@host:5432/database)"
        })
      return Redacted.make(overrides.ledger.trim())
    }
    if (overrides.state !== undefined) return undefined
    const env = yield* Config.option(Config.string(LEDGER_ENV)).pipe(
      Effect.withConfigProvider(envProvider()),
      Effect.orDie
    )
    if (Option.isSome(env)) {
      // Set but empty or not a URL is refused, not taken as "SQLite": a lost value must not split a shared ledger.
      if (!isPostgresUrl(env.value))
        return yield* new OptionError({
          flag: LEDGER_ENV,
          detail:
            "expected a postgres:// URL (postgres://user:password@host:5432/database); unset it for the SQLite ledger"
        })
      return Redacted.make(env.value.trim())
    }
    if (job.state !== undefined || job.ledger === undefined) return undefined
    return Redacted.make(job.ledger.trim())
  })

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
    const limits = yield* decodeLimitOverrides({
      rpm: overrides.rpm,
      concurrency: overrides.concurrency,
      records: overrides.records,
      maxAttempts: overrides.maxAttempts,
      graceMs: overrides.graceMs
    })
    const { job, dir } = yield* loadJobFile(file)
    const fromJob = (path: string) => resolve(dir, path)
    const fromCli = (path: string) => resolve(path)
    const input = overrides.input !== undefined ? fromCli(overrides.input) : fromJob(job.input.path)
    if (options.inputMustExist && !existsSync(input)) {
      // Blamed on where the path came from: the flag, or the job file.
      const detail = `input file not found: ${input}`
      return yield* overrides.input !== undefined
        ? new OptionError({ flag: "--input", detail })
        : new JobFileError({ file, detail })
    }
    const inputFormat = overrides.inputFormat ?? formatOf(input, job.input.format)
    if (inputFormat === undefined) {
      return yield* new JobFileError({
        file,
        detail: `${input}: cannot tell the format from the extension; set input.format or --input-format`
      })
    }
    const output = overrides.output !== undefined ? fromCli(overrides.output) : fromJob(job.output.path)
    const outputFormat = overrides.outputFormat ?? job.output.format ?? formatOf(output) ?? inputFormat
    const stem = join(dirname(output), basename(output, extname(output)))
    const rejects =
      overrides.rejects !== undefined
        ? fromCli(overrides.rejects)
        : job.output.rejects
          ? fromJob(job.output.rejects)
          : `${stem}.rejects.jsonl`
    // A cluster's URL is its ledger's: every worker shares it.
    const clusterUrl = overrides.cluster ?? job.cluster?.url
    if (clusterUrl !== undefined && !isPostgresUrl(clusterUrl))
      return yield* new OptionError({
        flag: overrides.cluster !== undefined ? "--cluster" : "cluster.url",
        detail: "expected a postgres:// URL (postgres://user:password@host:5432/database)"
      })
    const ledgerUrl =
      clusterUrl !== undefined ? Redacted.make(clusterUrl.trim()) : yield* chooseLedgerUrl(overrides, job)
    const defaulted = overrides.state === undefined && job.state === undefined && ledgerUrl === undefined
    const fresh = defaultLedgerPath(dir, job.name)
    // A ledger at the former default place (beside the output) is used until it is moved: an
    // upgrade must not re-ask what it already holds.
    const former =
      defaulted && !existsSync(fresh)
        ? [dirname(output), dirname(fromJob(job.output.path))]
            .map((d) => join(d, `${job.name}.ledger.sqlite`))
            .find((p) => existsSync(p))
        : undefined
    const state =
      overrides.state !== undefined ? fromCli(overrides.state) : job.state ? fromJob(job.state) : (former ?? fresh)
    return {
      file,
      job,
      name: job.name,
      input: {
        path: input,
        format: inputFormat,
        encoding: overrides.inputEncoding ?? job.input.encoding ?? DefaultEncoding,
        id: job.input.id,
        unclosedQuote: job.input.unclosedQuote
      },
      output: { path: output, format: outputFormat },
      rejects,
      store: job.store === undefined ? undefined : { ...job.store, path: fromJob(job.store.path) },
      state,
      ledgerUrl,
      cluster:
        clusterUrl === undefined
          ? undefined
          : { ...clusterSettings(job.cluster), url: Redacted.make(clusterUrl.trim()) },
      ...(former !== undefined ? { formerDefaultState: { path: former, moveTo: fresh } } : {}),
      limits: { ...job.limits, ...limits },
      rpmFromFlag: limits.rpm !== undefined,
      cache: overrides.cache ?? job.cache
    } satisfies ResolvedJob
  })
