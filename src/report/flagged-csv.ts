/** The flagged records as CSV (id, verdict, categories, excerpt or the guard's raw text). */
import { stringify } from "csv-stringify/sync"
import type { RunReport } from "./run-report.ts"

export const flaggedCsv = (r: RunReport): string =>
  `\uFEFF${stringify(
    (r.moderation?.flagged ?? []).map((f) => [f.key, f.verdict, f.categories.join(","), f.raw ?? f.excerpt ?? ""]),
    { header: true, columns: ["id", "verdict", "categories", "text"] }
  )}`
