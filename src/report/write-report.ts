/**
 * Writes a report beside the run's output: `<stem>.report.html`, `.report.md`, `.report.json` and
 * `<stem>.flagged.csv`, each atomically. And the job's alert thresholds, checked against it.
 */
import { Effect } from "effect"
import { basename, dirname, extname, join } from "node:path"
import { atomicTextFile } from "../io/atomic-file.ts"
import { flaggedCsv } from "./flagged-csv.ts"
import { renderHtml } from "./render-html.ts"
import { renderMarkdown } from "./render-markdown.ts"
import { encodeReportJson, type RunReport } from "./run-report.ts"

export interface ReportFiles {
  readonly html: string
  readonly markdown: string
  readonly json: string
  readonly csv: string
}

export const reportFiles = (outputPath: string): ReportFiles => {
  const stem = join(dirname(outputPath), basename(outputPath, extname(outputPath)))
  return {
    html: `${stem}.report.html`,
    markdown: `${stem}.report.md`,
    json: `${stem}.report.json`,
    csv: `${stem}.flagged.csv`
  }
}

/** Writes the report's files; the flagged records' CSV only for a job that moderates. */
export const writeReport = (report: RunReport, files: ReportFiles) =>
  Effect.scoped(
    Effect.forEach(
      [
        [files.html, renderHtml(report)],
        [files.markdown, renderMarkdown(report)],
        [files.json, encodeReportJson(report)],
        ...(report.moderation !== undefined ? [[files.csv, flaggedCsv(report)] as const] : [])
      ] as const,
      ([path, text]) => Effect.flatMap(atomicTextFile(path), (f) => Effect.zipRight(f.write(text), f.commit)),
      { discard: true }
    )
  )

/** Alert thresholds: a run over any of them exits non-zero so a cron wrapper can alert. */
export interface Thresholds {
  /** More than this many newly flagged records (any category). */
  readonly newlyFlagged?: number | undefined
  /** More than this many newly flagged records in a category, e.g. { T6: 0 }. */
  readonly categories?: Readonly<Record<string, number>> | undefined
}

type Alert = NonNullable<RunReport["alerts"]>[number]

/** The thresholds the report exceeds, each with its value (empty: none). */
export const alertsOf = (report: RunReport, t: Thresholds): ReadonlyArray<Alert> => {
  const changes = report.moderation?.changes
  if (changes === undefined) return []
  const out: Array<Alert> = []
  const n = changes.newlyFlagged.length
  if (t.newlyFlagged !== undefined && n > t.newlyFlagged)
    out.push({
      rule: "newlyFlagged",
      threshold: t.newlyFlagged,
      value: n,
      message: `${n} newly flagged records (threshold ${t.newlyFlagged})`
    })
  for (const [code, limit] of Object.entries(t.categories ?? {})) {
    const inCode = changes.newlyFlagged.filter((f) => f.categories.includes(code)).length
    if (inCode > limit)
      out.push({
        rule: `categories.${code}`,
        threshold: limit,
        value: inCode,
        message: `${inCode} newly flagged records in ${code} (threshold ${limit})`
      })
  }
  return out
}

/** The report with the thresholds it exceeds stated in it (HTML, Markdown, JSON); as it is without thresholds. */
export const withAlerts = (report: RunReport, t: Thresholds | undefined): RunReport =>
  t === undefined ? report : { ...report, alerts: alertsOf(report, t) }

/** What the report exceeds, one line each (empty: nothing). */
export const exceeded = (report: RunReport, t: Thresholds): ReadonlyArray<string> =>
  alertsOf(report, t).map((a) => a.message)
