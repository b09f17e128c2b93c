/** A job's report options: its `report:` settings plus what its pipeline says (moderation prefix, text columns). */
import type { ReportSettings } from "../job/job-file.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { defaultReportOptions, type ReportOptions } from "./build-report.ts"

export const reportOptionsFor = (pipeline: Pipeline, settings: ReportSettings): ReportOptions => {
  const moderate = pipeline.stages.find((s) => s.name === "moderate")
  const verdict = moderate?.columns.find((c) => c.name.endsWith("verdict"))?.name
  const translates = pipeline.stages.filter((s) => s.name === "translate")
  return {
    ...defaultReportOptions,
    excerpt: settings.excerpt,
    breakdown: settings.breakdown,
    trendRuns: settings.trendRuns,
    moderationPrefix:
      verdict !== undefined ? verdict.slice(0, -"verdict".length) : defaultReportOptions.moderationPrefix,
    textColumns: moderate?.reads ?? [...new Set(translates.flatMap((t) => t.reads))],
    // A translate stage's last column is its warnings column.
    warningsColumns:
      translates.length > 0 ? translates.map((t) => t.columns.at(-1)!.name) : defaultReportOptions.warningsColumns
  }
}
