/**
 * What changed since the job's previous run, record by record: records added, removed and edited
 * (same id, another request: its text or the job's settings changed), newly flagged, no longer
 * flagged (with the categories they had, and whether the record was edited or removed), and per
 * category the records that came into it and left it, not only the net.
 */
import { Stream } from "effect"
import type { StoredRecord } from "../ledger/ledger.ts"
import type { ModerationSection } from "./run-report.ts"
import { codesOf, type ReportTally, type SeenRecord, tally } from "./report-tally.ts"

type Changes = NonNullable<ModerationSection["changes"]>
type Flagged = ModerationSection["flagged"][number]

/** A stored record as the comparison sees it (the tally's `records` entry for the previous run). */
export const seenOf = (record: StoredRecord, verdictColumn: string, categoriesColumn: string): SeenRecord => {
  if (record.outcome._tag === "Failed") return { request: undefined, harmful: undefined }
  const row = record.outcome.output.rows[0]
  return {
    request: record.outcome.output.keys.join("\n"),
    harmful: row?.[verdictColumn] === "harmful" ? codesOf(row[categoriesColumn]) : undefined
  }
}

const edited = (a: SeenRecord, b: SeenRecord) =>
  a.request !== undefined && b.request !== undefined && a.request !== b.request

/** The changes from `before` (the previous run's records) to the tallied run. */
export const changesSince = (
  previousRunId: number,
  before: ReadonlyMap<string, SeenRecord>,
  tallied: ReportTally,
  order: (a: Flagged, b: Flagged) => number,
  codeOrder: (a: string, b: string) => number
): Changes => {
  const now = tallied.records
  let added = 0
  let edits = 0
  const into = new Map<string, number>()
  const outOf = new Map<string, number>()
  const after = new Map<string, number>()
  for (const [key, seen] of now) {
    const was = before.get(key)
    if (was === undefined) added++
    else if (edited(was, seen)) edits++
    for (const c of seen.harmful ?? []) {
      tally(after, c)
      if (!was?.harmful?.includes(c)) tally(into, c)
    }
  }
  let removed = 0
  const beforeCounts = new Map<string, number>()
  const noLonger: Array<NonNullable<Changes["noLongerFlaggedRecords"]>[number]> = []
  for (const [key, was] of before) {
    const seen = now.get(key)
    if (seen === undefined) removed++
    for (const c of was.harmful ?? []) {
      tally(beforeCounts, c)
      if (!seen?.harmful?.includes(c)) tally(outOf, c)
    }
    if (was.harmful !== undefined && seen?.harmful === undefined)
      noLonger.push({
        key,
        categories: was.harmful,
        record: seen === undefined ? "removed" : edited(was, seen) ? "edited" : "unchanged"
      })
  }
  noLonger.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  const codes = [...new Set([...beforeCounts.keys(), ...after.keys()])].sort(codeOrder)
  return {
    previousRunId,
    newlyFlagged: tallied.flagged
      .filter((f) => f.verdict === "harmful" && before.get(f.key)?.harmful === undefined)
      .sort(order),
    noLongerFlagged: noLonger.map((r) => r.key),
    categoryDeltas: codes
      .map((code) => ({
        code,
        before: beforeCounts.get(code) ?? 0,
        after: after.get(code) ?? 0,
        added: into.get(code) ?? 0,
        removed: outOf.get(code) ?? 0
      }))
      .filter((d) => d.added > 0 || d.removed > 0),
    records: { added, removed, edited: edits },
    noLongerFlaggedRecords: noLonger
  }
}

/** The previous run's records as the comparison sees them, from the ledger alone. */
export const seenRecords = <E>(
  records: Stream.Stream<StoredRecord, E>,
  verdictColumn: string,
  categoriesColumn: string
) =>
  records.pipe(
    Stream.runFold(new Map<string, SeenRecord>(), (acc, r) =>
      acc.set(r.key, seenOf(r, verdictColumn, categoriesColumn))
    )
  )
