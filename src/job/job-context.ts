/**
 * One job context per command: the job file resolved with the command's overrides, its pipeline,
 * and the checks the command owes it, built once (`jobContext`); and the job's ledger, the one
 * place a command's ledger is chosen and opened (`jobLedger`, `withJobLedger`). Every command that
 * takes a job file goes through here: a ledger adapter is chosen in `jobLedger` alone.
 */
import { Context, Data, Effect, Layer, Option } from "effect"
import { pipelineForJob } from "../../pipelines/index.ts"
import { ExitCode } from "../exit-code.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { Ledger, type Run } from "../ledger/ledger.ts"
import { PostgresLedger } from "../ledger/postgres-ledger.ts"
import { SqliteLedger } from "../ledger/sqlite-ledger.ts"
import { checkJob } from "./job-checks.ts"
import { type JobOverrides, ledgerMayExist, ledgerName, resolveJob, type ResolvedJob } from "./resolve-job.ts"

export class JobContext extends Context.Tag("svc-batch/JobContext")<
  JobContext,
  { readonly job: ResolvedJob; readonly pipeline: Pipeline }
>() {}

/** A past run a command asked for that the job's ledger does not hold (or no ledger at all). */
export class NoSuchRun extends Data.TaggedError("NoSuchRun")<{ readonly file: string; readonly detail: string }> {
  /** Exit 2 when it ends a command: nothing was done. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return `${this.file}: ${this.detail}`
  }
}

export interface ContextOptions {
  /** The command line's overrides of the job's fields. */
  readonly overrides?: JobOverrides
  /** `run` reads the input; a command that reads the ledger or the store alone does not (default true). */
  readonly inputMustExist?: boolean
  /**
   * `checkJob`: plan, check, run (--dry-run too), retry and gc accept and refuse the same jobs, with
   * the same message, before anything else.
   */
  readonly checked?: boolean
  /** The command reads past runs: a job without a ledger has not run yet (said, exit 2). */
  readonly ranBefore?: boolean
}

/** The context of `file` for one command. */
export const jobContext = (file: string, options: ContextOptions = {}) =>
  Layer.effect(
    JobContext,
    Effect.gen(function* () {
      const job = yield* resolveJob(file, options.overrides, { inputMustExist: options.inputMustExist ?? true })
      const pipeline = yield* pipelineForJob(file, job.job)
      if (options.checked === true) yield* checkJob(job, pipeline)
      if (options.ranBefore === true && !ledgerMayExist(job))
        return yield* new NoSuchRun({
          file,
          detail: `no ledger at ${job.state}: the job has not run yet (svc-batch run ${file})`
        })
      return { job, pipeline }
    })
  )

/**
 * The job's ledger, opened for the scope it is provided to: the one place an adapter is chosen —
 * PostgreSQL when the job resolved to a URL (`--ledger`, SVC_BATCH_LEDGER_URL, `ledger:`), else the
 * SQLite file at its `state`. `create: false` (plan): a job whose SQLite ledger does not exist yet
 * gets an empty ledger in memory, and no file is made.
 */
export const jobLedger = (job: ResolvedJob, options: { readonly create: boolean } = { create: true }) =>
  job.ledgerUrl !== undefined
    ? PostgresLedger.layer({ url: job.ledgerUrl })
    : options.create || ledgerMayExist(job)
      ? SqliteLedger.layer({ path: job.state })
      : SqliteLedger.layerMemory

/** `effect` with the context's job's ledger open: a command provides it once. */
export const withJobLedger = <A, E, R>(effect: Effect.Effect<A, E, R>, options?: { readonly create: boolean }) =>
  Effect.flatMap(JobContext, ({ job }) => Effect.provide(effect, jobLedger(job, options)))

/** The run `id` of the context's job, or its last; `NoSuchRun` naming what is missing. */
export const chosenRun = (id: Option.Option<number>) =>
  Effect.gen(function* () {
    const { job } = yield* JobContext
    const ledger = yield* Ledger
    const run: Option.Option<Run> = yield* Option.match(id, {
      onNone: () => ledger.lastRun(job.name),
      onSome: (n) => ledger.run(n)
    })
    if (Option.isNone(run) || run.value.job !== job.name) {
      const which = Option.match(id, { onNone: () => "no run", onSome: (n) => `no run ${n}` })
      return yield* new NoSuchRun({ file: job.file, detail: `${which} of job ${job.name} in ${ledgerName(job)}` })
    }
    return run.value
  })
