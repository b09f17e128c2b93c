/**
 * The run of a locked job: the reading phase (fingerprint, row estimate) and the run against the
 * service, under the progress display — which lives from the first read of the input to the end
 * of the run, so it is gone before the summary. Needs the job's context and ledger.
 */
import { Console, Duration, Effect, Option } from "effect"
import { reportProgress, statusLine } from "../engine/progress.ts"
import { defaultRetryPolicy } from "../engine/flow/retry.ts"
import { isResumable } from "../engine/run-lifecycle.ts"
import type { RunStats } from "../engine/run-stats.ts"
import { type Distribute, runPipeline } from "../engine/runner.ts"
import type { UnitSettings } from "../engine/records/process-unit.ts"
import type { SharedRate } from "../engine/flow/shared-bucket.ts"
import type { RowTallies } from "../engine/output/row-tally.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { checkReadable } from "../io/input-access.ts"
import { measureInput, openSource } from "../io/sources/index.ts"
import { chosenRun, JobContext } from "../job/job-context.ts"
import type { ResolvedJob } from "../job/resolve-job.ts"
import { Ledger } from "../ledger/ledger.ts"
import { describeEndpoint, type EndpointInfo, originOf, serviceLayer, ServiceEndpoint } from "./endpoint.ts"
import { logFormat } from "./log-format.ts"
import { newRunCommand, type RunInput } from "./run-flags.ts"

/** What a run takes beyond its job: the flags that shape it, the stop signal, the output's row consumers. */
export interface SessionSettings {
  readonly flags: Pick<RunInput, "newRun" | "retry" | "retryFailed">
  readonly maxRequests: number | undefined
  readonly stop: Effect.Effect<void>
  /** Row consumers fed as the output is written (the report's tally, the verdicts' count). */
  readonly tallies: RowTallies
  /** A cluster run: the processing pass distributed over work units (src/cluster/). */
  readonly distribute?: Distribute | undefined
}

/**
 * What processing the job's records takes (the flow and the pass's settings), for a run over the
 * whole input and for a cluster worker's unit alike.
 */
export const unitSettingsOf = (
  job: ResolvedJob,
  pipeline: Pipeline,
  endpoint: EndpointInfo,
  run: {
    readonly fingerprint: string
    readonly stop: Effect.Effect<void>
    readonly retryFailed: boolean
    readonly maxRequests?: number | undefined
    readonly sharedRate?: SharedRate | undefined
  }
): UnitSettings & {
  readonly recordConcurrency: number
  readonly grace: Duration.Duration
  readonly stop: Effect.Effect<void>
} => ({
  service: originOf(endpoint),
  baseUrl: endpoint.emulated ? undefined : endpoint.baseUrl,
  pipeline,
  source: openSource(job.input.path, job.input.format, job.input),
  fingerprint: run.fingerprint,
  idField: job.input.id,
  cache: job.cache,
  retryFailed: run.retryFailed,
  recordConcurrency: job.limits.records,
  rpm: job.limits.rpm,
  maxConcurrency: job.limits.concurrency,
  retry: { ...defaultRetryPolicy, maxAttempts: job.limits.maxAttempts },
  stop: run.stop,
  maxRequests: run.maxRequests,
  sharedRate: run.sharedRate,
  grace: Duration.millis(job.limits.graceMs)
})

export const runSession = (settings: SessionSettings, stats: RunStats) =>
  Effect.gen(function* () {
    const { job, pipeline } = yield* JobContext
    // `retry`: the run it names (or the last), looked up in the ledger this run uses.
    const retry = settings.flags.retry
    const reopen = retry === undefined ? undefined : (yield* chosenRun(retry.run)).id
    // After a stop the line says so (and shows no ETA) until the records in flight are done.
    yield* Effect.forkScoped(
      Effect.zipRight(
        settings.stop,
        Effect.sync(() => stats.progress().phase === "processing" && stats.setPhase("stopping"))
      )
    )
    const summary = yield* session(job, pipeline, settings, reopen, stats)
    // The run's end as a log event too (for `--log-format json` collectors).
    yield* Effect.logInfo(`run ${summary.runId} ${summary.status}`).pipe(
      Effect.annotateLogs({
        event: "run-end",
        job: job.name,
        run: summary.runId,
        status: summary.status,
        counters: stats.snapshot()
      }),
      Effect.when(() => logFormat.format === "json")
    )
    return summary
  })

const session = (
  job: ResolvedJob,
  pipeline: Pipeline,
  settings: SessionSettings,
  reopen: number | undefined,
  stats: RunStats
) => {
  const input = job.input.path
  const inputFormat = job.input.format
  // A line on stdout while the progress line may be drawn on the same terminal: cleared first.
  const say = (text: string) =>
    Effect.zipRight(
      Effect.sync(() => statusLine.clear()),
      Console.log(text)
    )
  const work = (fingerprint: string) =>
    Effect.gen(function* () {
      const endpoint = yield* ServiceEndpoint
      const ledger = yield* Ledger
      const estimate = stats.snapshot()
      yield* say(
        // `retry` says so: it reopens a run rather than starting or resuming one.
        `svc-batch ${reopen === undefined ? "run" : `retry (run ${reopen})`} ${job.name} (pipeline ${pipeline.name}: ${pipeline.stages.map((s) => s.name).join(" → ")}) — ${describeEndpoint(endpoint)}`
      )
      yield* say(`  input   ${input} (${inputFormat}, ${estimate.totalIsEstimate ? "~" : ""}${estimate.total} records)`)
      if (job.formerDefaultState !== undefined) {
        const { path, moveTo } = job.formerDefaultState
        yield* say(
          `  note    using the ledger at its former default place ${path}; move it (with any -wal/-shm beside it, while no run goes) to ${moveTo}, or set state: in the job, so that another --output finds it`
        )
      }
      const last = yield* ledger.lastRun(job.name)
      const o = settings.flags
      if (Option.isSome(last) && last.value.status !== "finished") {
        const { id, status } = last.value
        if (!isResumable(last.value, fingerprint))
          yield* say(
            `  note    the last run (${id}, ${status}) read a different input; starting a new run (answers are still reused)`
          )
        else if (o.newRun && reopen === undefined)
          yield* say(
            `  note    run ${id} (${status}) is left unfinished: --new-run starts another (answers are still reused)`
          )
      }
      return yield* runPipeline(
        {
          ...unitSettingsOf(job, pipeline, endpoint, {
            fingerprint,
            stop: settings.stop,
            retryFailed: o.retryFailed,
            maxRequests: settings.maxRequests
          }),
          job: job.name,
          newRun: o.newRun,
          reopen,
          // `retry` reopens a given run: no --new-run there.
          newRunCommand: reopen === undefined ? newRunCommand(process.argv) : undefined,
          output: job.output,
          rejectsPath: job.rejects,
          store: job.store,
          tallies: settings.tallies,
          distribute: settings.distribute,
          // How the input is read (encoding, CSV quoting) decides the rows as much as its bytes.
          outputIdentity: JSON.stringify(job.input)
        },
        stats
      ).pipe(Effect.scoped)
    })
  return Effect.scoped(
    Effect.gen(function* () {
      yield* reportProgress(stats, { tty: process.stderr.isTTY === true, cache: job.cache !== "off" })
      yield* checkReadable(input)
      const { fingerprint, estimate } = yield* measureInput(input, inputFormat)
      stats.setTotal(estimate.rows, !estimate.exact)
      return yield* work(fingerprint).pipe(
        Effect.provide(serviceLayer(job.job.emulator ?? {}, { serviceRequired: job.job.service === "required" }))
      )
    })
  ).pipe(Effect.annotateLogs({ job: job.name }))
}
