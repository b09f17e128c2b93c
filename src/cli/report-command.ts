/**
 * `svc-batch report <job-file> [--run N]`: rebuilds a run's report from the ledger, without a
 * single request. Excerpts and the breakdown come from the input when it is still the file the
 * run read (same fingerprint).
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { existsSync } from "node:fs"
import { fingerprintInput } from "../io/input-access.ts"
import { openSource } from "../io/sources/index.ts"
import { besidePath } from "../io/run-path.ts"
import { Ledger } from "../ledger/ledger.ts"
import { chosenRun, JobContext, withJobLedger } from "../job/job-context.ts"
import { buildReport } from "../report/build-report.ts"
import { reportOptionsFor } from "../report/report-options.ts"
import { reportFiles, withAlerts, writeReport } from "../report/write-report.ts"
import { announceReport } from "./present/report-lines.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { done, ending, Outcome } from "./outcome.ts"
import { pastRunsContext, stateOption } from "./state-option.ts"

export const reportCommand = Command.make(
  "report",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file (YAML or JSON)")),
    state: stateOption,
    run: Options.integer("run").pipe(Options.withDescription("the run (default: the job's last)"), Options.optional)
  },
  ending((o) =>
    Effect.gen(function* () {
      const { job, pipeline } = yield* JobContext
      const { report, files } = yield* withJobLedger(
        Effect.gen(function* () {
          const ledger = yield* Ledger
          const run = yield* chosenRun(o.run)
          // Excerpts and the breakdown only from the very input the run read.
          const same =
            existsSync(job.input.path) && (yield* fingerprintInput(job.input.path)).fingerprint === run.fingerprint
          const input = same ? openSource(job.input.path, job.input.format, job.input) : undefined
          const report = yield* buildReport(run, reportOptionsFor(pipeline, job.job.report), input)
          // An older run's report goes beside the current one's, never over it.
          const last = yield* ledger.lastRun(job.name)
          const current = Option.isSome(last) && last.value.id === run.id
          return { report, files: reportFiles(current ? job.output.path : besidePath(job.output.path, run.id)) }
        })
      )
      const alerted = withAlerts(report, job.job.report.fail)
      yield* writeReport(alerted, files)
      yield* Console.log(`svc-batch report ${job.name}: run ${report.runId} (${report.status})`)
      const alerts = (alerted.alerts ?? []).map((a) => a.message)
      return (yield* announceReport(report, files, alerts)) ? Outcome.ThresholdsExceeded() : done
    }).pipe(Effect.provide(pastRunsContext(o)))
  )
).pipe(
  Command.withDescription(
    "Rebuild a run's report (HTML, Markdown, JSON, flagged CSV) from the ledger; sends nothing. Example: svc-batch report jobs/demo-moderation.yaml --run 3"
  )
)
