/**
 * `svc-batch run <job-file>`: runs a job (embedded emulator unless SVC_BASE_URL is set), resuming
 * its last unfinished run: flags → job context → the run and what follows it → the summary.
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { RunStats } from "../engine/run-stats.ts"
import { JobContext, jobContext } from "../job/job-context.ts"
import type { JobOverrides, ResolvedJob } from "../job/resolve-job.ts"
import { coordinate } from "../cluster/coordinator.ts"
import { openSharedRate } from "../cluster/shared-rate.ts"
import { tellUnit } from "./worker-command.ts"
import { unitWork } from "./unit-work.ts"
import { resolve } from "node:path"
import { requestBudgetFlag } from "../job/request-budget-flag.ts"
import { rpmFlag } from "../job/rpm.ts"
import { whileLocked } from "./job-lock.ts"
import { done, ending, Outcome } from "./outcome.ts"
import { planOf } from "./plan-command.ts"
import { planLines } from "./present/plan-table.ts"
import { presentRunEnd } from "./present/run-summary.ts"
import { options, overridesOf, type RunInput } from "./run-flags.ts"
import { runEnd } from "./run-end.ts"
import { runSession } from "./run-session.ts"
import { gracefulStop } from "./shutdown.ts"

const runJob = (o: RunInput, maxRequests: number | undefined) =>
  Effect.gen(function* () {
    const { job, pipeline } = yield* JobContext
    if (o.dryRun) {
      const { plan, origin } = yield* planOf
      yield* Console.log(planLines(job, plan, origin).join("\n"))
      return done
    }
    const stats = new RunStats()
    const stop = yield* gracefulStop
    const after = runEnd(job, pipeline)
    // One invocation of the job at a time, held until this command ends (run, output, report, retention).
    return yield* whileLocked(
      Effect.gen(function* () {
        // A cluster run (not `retry`, which asks a run's failed records again on this machine).
        const distribute =
          job.cluster !== undefined && o.retry === undefined
            ? coordinate({
                url: job.cluster.url,
                cluster: job.cluster,
                job: job.name,
                jobFile: resolve(o.job),
                overrides: { ...unitOverrides(job) },
                input: job.input.path,
                format: job.input.format,
                sourceOptions: job.input,
                work: o.noWork
                  ? undefined
                  : {
                      work: unitWork(stop, yield* openSharedRate({ url: job.cluster.url })),
                      told: tellUnit
                    },
                stop,
                stats
              })
            : undefined
        const summary = yield* runSession({ flags: o, maxRequests, stop, tallies: after.tallies, distribute }, stats)
        const outcome = yield* presentRunEnd(summary, stats, job, maxRequests)
        if (summary.status !== "finished") return outcome
        return (yield* after.finish(summary)) ? Outcome.ThresholdsExceeded() : outcome
      }),
      { wait: o.wait, stop: Effect.as(stop, Outcome.Interrupted()) }
    )
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
    const maxRequests = yield* requestBudgetFlag(Option.getOrUndefined(o.maxRequests))
    // As plan, check, gc and retry: the same checks, the same refusals (exit 2, nothing sent).
    const context = jobContext(o.job, {
      overrides: overridesOf(o, rpm),
      checked: true,
      ranBefore: o.retry !== undefined
    })
    return yield* Effect.scoped(runJob(o, maxRequests)).pipe(Effect.provide(context))
  })

export const runCommand = Command.make("run", options, ending(executeRun)).pipe(
  Command.withDescription(
    "Run a job: read the input, run the pipeline's stages, write the enriched output and rejects. Example: svc-batch run jobs/nightly.yaml --max-requests 50000"
  )
)
