/**
 * What follows a run the command started: the report, tallied as the output is written (no read of
 * the input of its own), and the job's retention, each said in a line. The moderation verdicts the
 * output pass counts are kept with the run (the trend of later reports).
 */
import { Console, Effect } from "effect"
import { applyRetention, verdictColumnOf, writeRunReport } from "../engine/after-run.ts"
import type { RunSummary } from "../engine/runner.ts"
import { columnCountOfOutput } from "../engine/output/column-count.ts"
import { openSource } from "../io/sources/index.ts"
import type { ResolvedJob } from "../job/resolve-job.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { reportOptionsFor } from "../report/report-options.ts"
import { reportTallyOfOutput } from "../report/report-tally.ts"
import { describeGc } from "./present/gc-lines.ts"
import { announceReport } from "./present/report-lines.ts"

export const runEnd = (job: ResolvedJob, pipeline: Pipeline) => {
  const verdictColumn = verdictColumnOf(pipeline, job.job.report)
  // A moderation run keeps its verdict counts (the trend of later reports), counted as the output is written.
  const verdictCount = verdictColumn === undefined ? undefined : columnCountOfOutput(verdictColumn)
  const reportTally = job.job.report.enabled
    ? reportTallyOfOutput(reportOptionsFor(pipeline, job.job.report))
    : undefined
  /** After a finished run (needs the job's ledger): whether the report exceeds a `report.fail` threshold. */
  const finish = (summary: RunSummary) =>
    Effect.gen(function* () {
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
        // The summary above gave the report's notes already.
        exceeded = yield* announceReport(report, files, alerts, { notes: false })
      }
      const verdicts =
        verdictColumn === undefined ? undefined : { column: verdictColumn, counted: verdictCount?.committed() }
      const gc = yield* applyRetention(summary, job.name, job.job.retention, verdicts)
      if (gc.records > 0 || gc.answers > 0) yield* Console.log(`  ledger  retention: ${describeGc(gc)}`)
      return exceeded
    })
  const tallies = [reportTally?.tally, verdictCount?.tally].filter((t) => t !== undefined)
  return { tallies, finish }
}
