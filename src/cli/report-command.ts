/**
 * `svc-batch report <job-file> [--run N]`: rebuilds a run's report from the ledger, without a
 * single request. Excerpts and the breakdown come from the input when it is still the file the
 * run read (same fingerprint).
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { existsSync } from "node:fs"
import { fingerprintInput } from "../io/input-access.ts"
import { openSource } from "../io/open-source.ts"
import { besidePath } from "../io/run-path.ts"
import { Ledger, type Run } from "../ledger/ledger.ts"
import { JobContext, jobContext, jobLedger } from "../job/job-context.ts"
import { ledgerMayExist, ledgerName } from "../job/resolve-job.ts"
import { buildReport } from "../report/build-report.ts"
import { reportOptionsFor } from "../report/report-options.ts"
import { reportFiles, withAlerts, writeReport } from "../report/write-report.ts"
import { ConfigError } from "./endpoint.ts"
import { announceReport } from "./present/report-lines.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { done, ending, Outcome } from "./outcome.ts"
import { ledgerOverrides, stateOption } from "./state-option.ts"

export const reportCommand = Command.make(
  "report",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file (YAML or JSON)")),
    state: stateOption,
    run: Options.integer("run").pipe(Options.withDescription("the run (default: the job's last)"), Options.optional)
  },
  ending((o) =>
    Effect.scoped(
      Effect.gen(function* () {
        const { job, pipeline } = yield* JobContext
        if (!ledgerMayExist(job))
          return yield* new ConfigError({ detail: `no ledger at ${job.state}: the job has not run yet` })
        const { report, files } = yield* Effect.gen(function* () {
          const ledger = yield* Ledger
          const run: Option.Option<Run> = yield* Option.match(o.run, {
            onNone: () => ledger.lastRun(job.name),
            onSome: (id) => ledger.run(id)
          })
          if (Option.isNone(run) || run.value.job !== job.name) {
            const which = Option.match(o.run, { onNone: () => "no run", onSome: (id) => `no run ${id}` })
            return yield* new ConfigError({ detail: `${o.job}: ${which} of job ${job.name} in ${ledgerName(job)}` })
          }
          // Excerpts and the breakdown only from the very input the run read.
          const same =
            existsSync(job.input.path) &&
            (yield* fingerprintInput(job.input.path)).fingerprint === run.value.fingerprint
          const input = same ? openSource(job.input.path, job.input.format, job.input.encoding, job.input) : undefined
          const report = yield* buildReport(run.value, reportOptionsFor(pipeline, job.job.report), input)
          // An older run's report goes beside the current one's, never over it.
          const last = yield* ledger.lastRun(job.name)
          const current = Option.isSome(last) && last.value.id === run.value.id
          return { report, files: reportFiles(current ? job.output.path : besidePath(job.output.path, run.value.id)) }
        }).pipe(Effect.provide(jobLedger(job)))
        const alerted = withAlerts(report, job.job.report.fail)
        yield* writeReport(alerted, files)
        yield* Console.log(`svc-batch report ${job.name}: run ${report.runId} (${report.status})`)
        const alerts = (alerted.alerts ?? []).map((a) => a.message)
        return (yield* announceReport(report, files, alerts)) ? Outcome.ThresholdsExceeded() : done
      })
    ).pipe(Effect.provide(jobContext(o.job, ledgerOverrides(o.state), { inputMustExist: false })))
  )
).pipe(
  Command.withDescription(
    "Rebuild a run's report (HTML, Markdown, JSON, flagged CSV) from the ledger; sends nothing. Example: svc-batch report jobs/demo-moderation.yaml --run 3"
  )
)
