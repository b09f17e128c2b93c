/** The report's lines after a run or `report`: where it went, its figures, the thresholds it exceeds. */
import { Console, Effect } from "effect"
import { reportNotes, type RunReport } from "../../report/run-report.ts"
import type { ReportFiles } from "../../report/write-report.ts"

/**
 * Prints where the report went and what it exceeds (with its notes, unless the run's summary just
 * gave them); returns whether it exceeded a threshold.
 */
export const announceReport = (
  report: RunReport,
  files: ReportFiles,
  alerts: ReadonlyArray<string>,
  options: { readonly notes: boolean } = { notes: true }
) =>
  Effect.gen(function* () {
    if (options.notes) for (const note of reportNotes(report)) yield* Console.log(`  note    ${note}`)
    const m = report.moderation
    if (m !== undefined) {
      const changes = m.changes
        ? `; since run ${m.changes.previousRunId}: ${m.changes.newlyFlagged.length} newly flagged, ${m.changes.noLongerFlagged.length} no longer flagged`
        : ""
      yield* Console.log(
        `  report  ${m.harmful} harmful, ${m.safe} safe, ${m.unparsed} unparsed${m.empty > 0 ? `, ${m.empty} empty` : ""}${changes}`
      )
    }
    yield* Console.log(
      `  report  ${files.html}\n          ${files.markdown}\n          ${files.json}${m !== undefined ? `\n          ${files.csv}` : ""}`
    )
    for (const a of alerts) yield* Console.error(`svc-batch: threshold exceeded: ${a}`)
    return alerts.length > 0
  })
