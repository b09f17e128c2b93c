/** `svc-batch runs <job-file> [--limit N] [--json]`: the job's past runs, newest first; sends nothing. */
import { withDefaultShown } from "./option-default.ts"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { Ledger } from "../ledger/ledger.ts"
import { JobContext, withJobLedger } from "../job/job-context.ts"
import { ledgerName } from "../job/resolve-job.ts"
import { pastRunsContext, stateOption } from "./state-option.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { lockSeenHere, viewsWithLock } from "./run-liveness.ts"
import { runsTable } from "./run-view.ts"

export const runsCommand = Command.make(
  "runs",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file")),
    state: stateOption,
    limit: Options.integer("limit").pipe(Options.withDescription("how many runs, newest first"), withDefaultShown(20)),
    json: Options.boolean("json").pipe(Options.withDescription("one JSON object per run"))
  },
  (o) =>
    Effect.gen(function* () {
      const { job } = yield* JobContext
      const views = yield* withJobLedger(
        viewsWithLock(
          Effect.flatMap(Ledger, (l) => l.runs(job.name, Math.max(1, o.limit))),
          lockSeenHere(job)
        )
      )
      if (o.json) {
        for (const v of views) yield* Console.log(JSON.stringify(v))
        return
      }
      if (views.length === 0) return yield* Console.log(`no runs of ${job.name} in ${ledgerName(job)}`)
      yield* Console.log(runsTable(views).join("\n"))
    }).pipe(Effect.provide(pastRunsContext(o)))
).pipe(
  Command.withDescription(
    "List a job's runs with outcome, counts, duration, requests and cache hits; sends nothing. Example: svc-batch runs jobs/nightly.yaml --limit 7"
  )
)
