/**
 * `svc-batch run <job-file>`: runs a job (embedded emulator unless SVC_BASE_URL is set), resuming
 * its last unfinished run: flags → job context → the run and what follows it → the summary.
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { applyRetention, verdictColumnOf, writeRunReport } from "../engine/after-run.ts"
import { RunStats } from "../engine/run-stats.ts"
import { openSource } from "../io/sources/index.ts"
import { reportOptionsFor } from "../report/report-options.ts"
import { reportTallyOfOutput } from "../report/report-tally.ts"
import { checkJob } from "../job/job-checks.ts"
import { JobContext, jobContext, jobLedger } from "../job/job-context.ts"
import type { JobOverrides, ResolvedJob } from "../job/resolve-job.ts"
import { coordinate } from "../cluster/coordinator.ts"
import { tellUnit } from "./worker-command.ts"
import { unitWork } from "./unit-work.ts"
import { resolve } from "node:path"
import { requestBudgetFlag } from "../job/request-budget-flag.ts"
import { rpmFlag } from "../job/rpm.ts"
import { lockJob } from "./job-lock.ts"
import { logFormat } from "./log-format.ts"
import { done, ending, Outcome } from "./outcome.ts"
import { planOf } from "./plan-command.ts"
import { describeGc } from "./present/gc-lines.ts"
import { planLines } from "./present/plan-table.ts"
import { announceReport } from "./present/report-lines.ts"
import { presentRunEnd } from "./present/run-summary.ts"
import { options, overridesOf, type RunInput } from "./run-flags.ts"
import { runSession } from "./run-session.ts"
import { gracefulStop } from "./shutdown.ts"

const runJob = (o: RunInput) =>
  Effect.gen(function* () {
    const { job, pipeline } = yield* JobContext
    const maxRequests = yield* requestBudgetFlag(Option.getOrUndefined(o.maxRequests))
    if (o.dryRun) {
      // The plan checks the job as plan, check and run do.
      const { plan, origin } = yield* planOf(job, pipeline)
      yield* Console.log(planLines(job, plan, origin).join("\n"))
      return done
    }
    // As plan and check: the same checks, the same refusals (exit 2, nothing sent).
    yield* checkJob(job, pipeline)
    const stats = new RunStats()
    const stop = yield* gracefulStop
    // After a stop the line says so (and shows no ETA) until the records in flight are done.
    yield* Effect.forkScoped(
      Effect.zipRight(
        stop,
        Effect.sync(() => stats.progress().phase === "processing" && stats.setPhase("stopping"))
      )
    )
    // One invocation of the job at a time (held until this command ends: run, output, report, retention).
    // A stop while waiting for the lock (--wait) ends the command: nothing was started.
    const locked = yield* Effect.raceFirst(
      Effect.as(lockJob(job.name, job.state, { wait: o.wait }), true),
      Effect.as(stop, false)
    )
    if (!locked) {
      yield* Console.log(`stopped while waiting for the running invocation of job ${job.name}; nothing was sent`)
      return Outcome.Interrupted()
    }
    // A moderation run keeps its verdict counts (the trend of later reports), counted by the output pass.
    const verdictColumn = verdictColumnOf(pipeline, job.job.report)
    // The report tallied as the output is written: no read of the input of its own.
    const reportTally = job.job.report.enabled
      ? reportTallyOfOutput(reportOptionsFor(pipeline, job.job.report))
      : undefined
    return yield* Effect.gen(function* () {
      const tallies = reportTally === undefined ? [] : [reportTally.tally]
      // A cluster run (not `retry`, which asks a run's failed records again on this machine).
      const distribute =
        job.cluster !== undefined && o.reopen === undefined
          ? coordinate({
              url: job.cluster.url,
              cluster: job.cluster,
              job: job.name,
              jobFile: resolve(o.job),
              overrides: { ...unitOverrides(job) },
              input: job.input.path,
              format: job.input.format,
              sourceOptions: job.input,
              work: o.noWork ? undefined : { work: unitWork(stop), told: tellUnit },
              stop,
              stats
            })
          : undefined
      const summary = yield* runSession(
        job,
        pipeline,
        { flags: o, maxRequests, stop, verdictColumn, tallies, distribute },
        stats
      )
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
      const outcome = yield* presentRunEnd(summary, stats, job, maxRequests)
      if (summary.status !== "finished") return outcome
      let exceeded = false
      if (job.job.report.enabled) {
        // From the tally of the output just written; else (none committed) the input read again.
        const input = reportTally?.committed() ?? openSource(job.input.path, job.input.format, job.input)
        const { report, files, alerts } = yield* writeRunReport(
          summary,
          pipeline,
          job.job.report,
          input,
          summary.outputPath ?? job.output.path
        )
        exceeded = yield* announceReport(report, files, alerts)
      }
      const gc = yield* applyRetention(summary, job.name, job.job.retention, verdictColumn)
      if (gc.records > 0 || gc.answers > 0) yield* Console.log(`  ledger  retention: ${describeGc(gc)}`)
      return exceeded ? Outcome.ThresholdsExceeded() : outcome
    }).pipe(Effect.provide(jobLedger(job)))
  })

/** What a worker resolves the job with: this machine's resolution of every field a unit reads, paths absolute. */
const unitOverrides = (job: ResolvedJob): JobOverrides => ({
  input: job.input.path,
  inputFormat: job.input.format,
  inputEncoding: job.input.encoding,
  ...(Object.keys(job.limits.rpm).length > 0 ? { rpm: job.limits.rpm } : {}),
  concurrency: job.limits.concurrency,
  records: job.limits.records,
  maxAttempts: job.limits.maxAttempts,
  graceMs: job.limits.graceMs,
  cache: job.cache
})

export const executeRun = (o: RunInput) =>
  Effect.gen(function* () {
    const rpm = yield* Option.match(o.rpm, { onNone: () => Effect.succeed(undefined), onSome: rpmFlag })
    return yield* Effect.scoped(runJob(o)).pipe(Effect.provide(jobContext(o.job, overridesOf(o, rpm))))
  })

export const runCommand = Command.make("run", options, ending(executeRun)).pipe(
  Command.withDescription(
    "Run a job: read the input, run the pipeline's stages, write the enriched output and rejects. Example: svc-batch run jobs/nightly.yaml --max-requests 50000"
  )
)
