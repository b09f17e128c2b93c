/**
 * The flagged records as CSV (id, verdict, categories, excerpt or the guard's raw text): the text
 * csv-stringify writes with its defaults (a field quoted when it holds `"`, `,`, CR or LF, quotes
 * doubled; LF after every record), by hand: up to 10,000 rows a run, and csv-stringify took
 * ~2 KB of garbage a row (a sixth of a warm 50k rerun's report).
 */
import type { RunReport } from "./run-report.ts"

const NEEDS_QUOTES = /[",\r\n]/

export const csvField = (value: string): string =>
  NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value

export const flaggedCsv = (r: RunReport): string => {
  let out = "\uFEFFid,verdict,categories,text\n"
  for (const f of r.moderation?.flagged ?? [])
    out += `${csvField(f.key)},${csvField(f.verdict)},${csvField(f.categories.join(","))},${csvField(f.raw ?? f.excerpt ?? "")}\n`
  return out
}
