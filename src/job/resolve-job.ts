/**
 * `resolveJob`: the one place a job becomes concrete settings (paths resolved against the job
 * file's folder, command-line overrides applied), so every command reads a job the same way.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { basename, dirname, extname, join, resolve } from "node:path"
import { type Format, formatOf } from "../io/sources/index.ts"
import { DefaultEncoding, type Encoding } from "../io/encoding.ts"
import type { StoreSettings } from "../store/vector-store.ts"
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
    const defaulted = overrides.state === undefined && job.state === undefined
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
      ...(former !== undefined ? { formerDefaultState: { path: former, moveTo: fresh } } : {}),
      limits: { ...job.limits, ...limits },
      rpmFromFlag: limits.rpm !== undefined,
      cache: overrides.cache ?? job.cache
    } satisfies ResolvedJob
  })
