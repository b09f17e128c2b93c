/**
 * `svc-batch run <job-file>`: runs a job (embedded emulator unless SVC_BASE_URL is set), resuming
 * its last unfinished run: flags → job context → the run and what follows it → the summary.
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { RunStats } from "../engine/run-stats.ts"
import { JobContext, jobContext } from "../job/job-context.ts"
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
        const summary = yield* runSession({ flags: o, maxRequests, stop, tallies: after.tallies }, stats)
        const outcome = yield* presentRunEnd(summary, stats, job, maxRequests)
        if (summary.status !== "finished") return outcome
        return (yield* after.finish(summary)) ? Outcome.ThresholdsExceeded() : outcome
      }),
      { wait: o.wait, stop: Effect.as(stop, Outcome.Interrupted()) }
    )
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
