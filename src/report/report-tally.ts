/**
 * The report's figures, tallied one record at a time: each record's outcome (and, when the input
 * is at hand, its fields for excerpts and the breakdown). The run's output feeds it as it joins
 * each input row with its outcome, so a run's report needs no read of the input of its own;
 * `svc-batch report` feeds it from the ledger (and the input, when unchanged).
 */
import type { RowTally } from "../engine/output/row-tally.ts"
import type { StoredRecord } from "../ledger/ledger.ts"
import type { ModerationSection } from "./run-report.ts"

type Flagged = ModerationSection["flagged"][number]

/** What the tally reads of the report's options (ReportOptions has them). */
export interface TallyOptions {
  readonly excerpt: number
  readonly breakdown?: string | undefined
  readonly moderationPrefix: string
  readonly textColumns: ReadonlyArray<string>
  readonly warningsColumns: ReadonlyArray<string>
  readonly maxListed: number
}

export const codesOf = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string" && value !== ""
    ? value
        .split(",")
        .map((c) => c.trim())
        .filter((c) => c !== "")
    : []

const excerptOf = (
  fields: Readonly<Record<string, unknown>> | undefined,
  options: TallyOptions
): string | undefined => {
  if (fields === undefined || options.excerpt <= 0) return undefined
  const text = options.textColumns
    .map((c) => fields[c])
    .filter((v) => v !== undefined && v !== null && v !== "")
    .map(String)
    .join(" / ")
    .replace(/\s+/g, " ")
    .trim()
  const chars = [...text]
  return chars.length <= options.excerpt ? text : `${chars.slice(0, options.excerpt).join("")}…`
}

export const tally = <K>(map: Map<K, number>, key: K, by = 1) => map.set(key, (map.get(key) ?? 0) + by)

export interface ReportTally {
  readonly _tag: "ReportTally"
  /** One record's outcome; `fields` when the input row is at hand. */
  readonly add: (record: StoredRecord, fields: Readonly<Record<string, unknown>> | undefined) => void
  /** Whether the records came with their input rows (excerpts and the breakdown need them). */
  readonly withInput: boolean
  readonly done: () => number
  readonly failed: () => number
  readonly moderated: () => number
  readonly verdicts: Map<string, number>
  readonly categories: Map<string, number>
  readonly pairs: Map<string, number>
  readonly breakdown: Map<string, { records: number; harmful: number }>
  readonly failures: Map<string, { stage: string; status: string; count: number; example: string }>
  readonly flagged: Array<Flagged>
  readonly warnings: Array<{ key: string; warning: string }>
  /** The records with the most requests (chunks), most first: at most CHUNKED_LISTED. */
  readonly chunked: () => ReadonlyArray<{ key: string; requests: number }>
}

/** Records listed with their chunk counts in the report. */
export const CHUNKED_LISTED = 50

export const makeReportTally = (options: TallyOptions, withInput: boolean): ReportTally => {
  const verdictColumn = `${options.moderationPrefix}verdict`
  const categoriesColumn = `${options.moderationPrefix}categories`
  const rawColumn = `${options.moderationPrefix}raw`
  const several = options.warningsColumns.length > 1
  let done = 0
  let failed = 0
  let moderated = 0
  const verdicts = new Map<string, number>()
  const categories = new Map<string, number>()
  const pairs = new Map<string, number>()
  const breakdown = new Map<string, { records: number; harmful: number }>()
  const failures = new Map<string, { stage: string; status: string; count: number; example: string }>()
  const flagged: Array<Flagged> = []
  const warnings: Array<{ key: string; warning: string }> = []
  // Kept to the CHUNKED_LISTED with most requests as it goes (a stable sort: ties in input order),
  // not one entry per chunked record. Nothing in the tally grows with the corpus: the
  // record-by-record changes are read from the ledger (report-changes.ts).
  let chunked: Array<{ key: string; requests: number }> = []
  const topChunked = () => {
    chunked = chunked.sort((a, b) => b.requests - a.requests).slice(0, CHUNKED_LISTED)
    return chunked
  }

  const add = (record: StoredRecord, fields: Readonly<Record<string, unknown>> | undefined) => {
    const outcome = record.outcome
    if (outcome._tag === "Failed") {
      failed++
      const k = `${outcome.error.stage}\u0000${outcome.error.status}`
      const f = failures.get(k) ?? {
        stage: outcome.error.stage,
        status: outcome.error.status,
        count: 0,
        example: outcome.error.message
      }
      f.count++
      failures.set(k, f)
      return
    }
    done++
    const row = outcome.output.rows[0] ?? {}
    if (outcome.output.keys.length > 1) {
      chunked.push({ key: record.key, requests: outcome.output.keys.length })
      if (chunked.length >= 4 * CHUNKED_LISTED) topChunked()
    }
    for (const column of options.warningsColumns) {
      const warning = row[column]
      // With several translate stages, each warning says whose it is.
      if (typeof warning === "string" && warning !== "")
        warnings.push({ key: record.key, warning: several ? `${column}: ${warning}` : warning })
    }
    const verdict = row[verdictColumn]
    if (typeof verdict !== "string") return
    moderated++
    tally(verdicts, verdict)
    // A safe record's categories are never read (most records of a run are safe).
    const codes = verdict === "safe" ? [] : codesOf(row[categoriesColumn])
    if (options.breakdown !== undefined && fields !== undefined) {
      const value = String(fields[options.breakdown] ?? "(none)")
      const b = breakdown.get(value) ?? { records: 0, harmful: 0 }
      b.records++
      if (verdict === "harmful") b.harmful++
      breakdown.set(value, b)
    }
    if (verdict === "harmful") {
      for (const c of codes) tally(categories, c)
      for (let a = 0; a < codes.length; a++)
        for (let b = a + 1; b < codes.length; b++) tally(pairs, `${codes[a]}+${codes[b]}`)
    }
    if (verdict !== "safe" && flagged.length < options.maxListed) {
      const excerpt = excerptOf(fields, options)
      const raw = verdict === "unparsed" ? row[rawColumn] : undefined
      flagged.push({
        key: record.key,
        verdict,
        categories: codes,
        ...(excerpt !== undefined ? { excerpt } : {}),
        ...(typeof raw === "string" ? { raw } : {})
      })
    }
  }

  return {
    _tag: "ReportTally",
    add,
    withInput,
    done: () => done,
    failed: () => failed,
    moderated: () => moderated,
    verdicts,
    categories,
    pairs,
    breakdown,
    failures,
    flagged,
    warnings,
    chunked: topChunked
  }
}

/**
 * The report's tally as a consumer of the run's output rows (each with its input fields): `tally`
 * makes one per output writer; `committed` is the one whose output was committed, if any.
 */
export const reportTallyOfOutput = (options: TallyOptions) => {
  let committed: ReportTally | undefined
  const tally = (): RowTally => {
    const t = makeReportTally(options, true)
    return { add: (fields, stored) => t.add(stored, fields), commit: () => void (committed = t) }
  }
  return { tally, committed: (): ReportTally | undefined => committed }
}
