/**
 * After a finished run: its report, built from the ledger and the input the run just read (no
 * request), then retention — once the report has compared this run with the previous one. The run
 * keeps its verdict counts for the trend of later reports. The next run reuses the pages older
 * runs' records leave, so only free space beyond that is compacted.
 */
import { Effect, Option } from "effect"
import type { Retention, ReportSettings } from "../job/job-file.ts"
import type { Source } from "../io/source.ts"
import { Ledger } from "../ledger/ledger.ts"
import { buildReport } from "../report/build-report.ts"
import type { ReportTally } from "../report/report-tally.ts"
import { reportOptionsFor } from "../report/report-options.ts"
import { reportFiles, withAlerts, writeReport } from "../report/write-report.ts"
import type { RunSummary } from "./runner.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import type { ColumnCount } from "./output/column-count.ts"

/** The column whose values a moderation run counts (its verdicts), counted as the output is written. */
export const verdictColumnOf = (pipeline: Pipeline, report: ReportSettings): string | undefined =>
  pipeline.stages.some((s) => s.name === "moderate")
    ? `${reportOptionsFor(pipeline, report).moderationPrefix}verdict`
    : undefined

/** Builds and writes the run's report beside `outputPath`; the thresholds of `report.fail` it exceeds. */
export const writeRunReport = (
  summary: RunSummary,
  pipeline: Pipeline,
  settings: ReportSettings,
  input: Source | ReportTally,
  outputPath: string
) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const run = yield* ledger.run(summary.runId)
    const built = yield* buildReport(Option.getOrThrow(run), reportOptionsFor(pipeline, settings), input)
    // The alert is stated in the report itself (HTML, Markdown, JSON), not only in the exit code.
    const report = withAlerts(built, settings.fail)
    const files = reportFiles(outputPath)
    yield* writeReport(report, files)
    return { report, files, alerts: (report.alerts ?? []).map((a) => a.message) }
  })

/**
 * Keeps the run's verdict counts (`counted` by the output's tally; else, no output committed, a
 * query over the run's records), then applies the job's retention.
 */
export const applyRetention = (
  summary: RunSummary,
  job: string,
  retention: Retention,
  verdicts: { readonly column: string; readonly counted: ReadonlyArray<ColumnCount> | undefined } | undefined
) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    if (verdicts !== undefined) {
      const counts = verdicts.counted ?? (yield* ledger.countByColumn(summary.runId, verdicts.column))
      const run = yield* ledger.run(summary.runId)
      if (Option.isSome(run)) {
        yield* ledger.setRun(summary.runId, "finished", {
          ...run.value.stats,
          verdicts: Object.fromEntries(counts.map((c) => [c.value ?? "none", c.n]))
        })
      }
    }
    return yield* ledger.gc(job, retention.runs, Date.now() - retention.answerDays * 86_400_000, {
      nextRunReuses: true
    })
  })
