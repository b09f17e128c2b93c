/**
 * What changed since the job's previous run, record by record: records added, removed and edited
 * (same id, another request: its text or the job's settings changed), newly flagged, no longer
 * flagged (with the categories they had, and whether the record was edited or removed), and per
 * category the records that came into it and left it, not only the net.
 *
 * Both runs' records are read from the ledger side by side, in input order, and matched by key as
 * they come: a record waits only until its key turns up in the other run. A nightly rerun of the
 * same (or an appended, edited) corpus holds a handful of records at a time, not a map of every
 * record of both runs (~180 bytes a record: a 1,000,000-record rerun ran out of its 256 MiB heap);
 * only a reordered corpus holds the records displaced. A key repeated within a run is matched
 * occurrence by occurrence (the first with the first).
 *
 * Records are read as stored text (`recordTexts`) and compared as text: a pair with the same text
 * is unchanged, and its text is parsed only if it can hold a harmful verdict; only pairs that
 * differ are decoded whole (a warm 50k rerun decoded every record of both runs: ~0.3 CPU s).
 */
import { Effect } from "effect"
import type { LedgerService, StoredRecord, StoredRecordText } from "../ledger/ledger.ts"
import { toOutcome } from "../ledger/outcome-codec.ts"
import type { ModerationSection } from "./run-report.ts"
import { codesOf, tally } from "./report-tally.ts"

type Changes = NonNullable<ModerationSection["changes"]>
type Flagged = ModerationSection["flagged"][number]
type NoLonger = NonNullable<Changes["noLongerFlaggedRecords"]>[number]

/** A record as the comparison sees it: its request (answer keys; undefined when it failed) and, harmful, its categories. */
export interface SeenRecord {
  readonly request: string | undefined
  readonly harmful: ReadonlyArray<string> | undefined
}

export const seenOf = (record: StoredRecord, verdictColumn: string, categoriesColumn: string): SeenRecord => {
  if (record.outcome._tag === "Failed") return { request: undefined, harmful: undefined }
  const row = record.outcome.output.rows[0]
  return {
    request: record.outcome.output.keys.join("\n"),
    harmful: row?.[verdictColumn] === "harmful" ? codesOf(row[categoriesColumn]) : undefined
  }
}

const notSeen: SeenRecord = { request: undefined, harmful: undefined }

/**
 * A record's verdict as the comparison needs it when its request does not matter (the pair's
 * texts are equal, or it has no pair): its JSON can hold the verdict "harmful" only if the text
 * has `"harmful"` (JSON.stringify and PostgreSQL write it so; any `\u` escape: parsed to be sure).
 */
const verdictOf = (r: StoredRecordText, verdictColumn: string, categoriesColumn: string): SeenRecord => {
  if (r.status !== "done") return notSeen
  const text = r.output
  if (text === null || (!text.includes('"harmful"') && !text.includes("\\u"))) return notSeen
  return seenOf({ key: r.key, outcome: toOutcome(r) }, verdictColumn, categoriesColumn)
}

const sameText = (a: StoredRecordText, b: StoredRecordText) =>
  a.status === b.status && a.output === b.output && (a.status !== "failed" || a.error === b.error)

const edited = (a: SeenRecord, b: SeenRecord) =>
  a.request !== undefined && b.request !== undefined && a.request !== b.request

/** Records read from the ledger per query, for each run. */
const PAGE = 2000

/** The comparison's counters, fed one pair (or unmatched record) at a time. */
const makeComparison = (harmfulListed: ReadonlySet<string>) => {
  let added = 0
  let removed = 0
  let edits = 0
  const into = new Map<string, number>()
  const outOf = new Map<string, number>()
  const after = new Map<string, number>()
  const beforeCounts = new Map<string, number>()
  const noLonger: Array<NoLonger> = []
  /** Of the harmful records the report lists, those the previous run flagged too. */
  const flaggedBefore = new Set<string>()
  const pair = (key: string, was: SeenRecord | undefined, seen: SeenRecord | undefined) => {
    if (was === undefined) added++
    else if (seen === undefined) removed++
    else if (edited(was, seen)) edits++
    for (const c of seen?.harmful ?? []) {
      tally(after, c)
      if (!was?.harmful?.includes(c)) tally(into, c)
    }
    if (was === undefined) return
    for (const c of was.harmful ?? []) {
      tally(beforeCounts, c)
      if (!seen?.harmful?.includes(c)) tally(outOf, c)
    }
    if (was.harmful === undefined) return
    if (harmfulListed.has(key)) flaggedBefore.add(key)
    if (seen?.harmful === undefined)
      noLonger.push({
        key,
        categories: was.harmful,
        record: seen === undefined ? "removed" : edited(was, seen) ? "edited" : "unchanged"
      })
  }
  const records = () => ({ added, removed, edited: edits })
  return { pair, records, into, outOf, after, beforeCounts, noLonger, flaggedBefore }
}

type Seen = StoredRecordText

/** Records of one run by key (as stored), waiting for their match (a repeated key: its occurrences in order). */
class Waiting {
  private readonly map = new Map<string, Seen | Array<Seen>>()
  add(key: string, seen: Seen) {
    const at = this.map.get(key)
    if (at === undefined) this.map.set(key, seen)
    else if (Array.isArray(at)) at.push(seen)
    else this.map.set(key, [at, seen])
  }
  take(key: string): Seen | undefined {
    const at = this.map.get(key)
    if (at === undefined || !Array.isArray(at)) {
      if (at !== undefined) this.map.delete(key)
      return at
    }
    const first = at.shift()!
    if (at.length === 0) this.map.delete(key)
    return first
  }
  *drain(): Generator<[string, Seen]> {
    for (const [key, at] of this.map) {
      if (Array.isArray(at)) for (const s of at) yield [key, s]
      else yield [key, at]
    }
  }
}

/**
 * The changes from the previous run to this one, both read from the ledger; `flagged`: the records
 * this run's report lists (the newly flagged are those of them the previous run did not flag).
 */
export const changesSince = (
  ledger: Pick<LedgerService, "recordTexts">,
  previousRunId: number,
  runId: number,
  flagged: ReadonlyArray<Flagged>,
  columns: { readonly verdict: string; readonly categories: string },
  order: (a: Flagged, b: Flagged) => number,
  codeOrder: (a: string, b: string) => number
): Effect.Effect<Changes> =>
  Effect.gen(function* () {
    const listed = flagged.filter((f) => f.verdict === "harmful")
    const cmp = makeComparison(new Set(listed.map((f) => f.key)))
    /** A pair (or an unmatched record) as stored: decoded only as far as the comparison needs. */
    const compare = (key: string, was: Seen | undefined, seen: Seen | undefined) => {
      const { verdict, categories } = columns
      if (was !== undefined && seen !== undefined && !sameText(was, seen))
        return cmp.pair(
          key,
          seenOf({ key, outcome: toOutcome(was) }, verdict, categories),
          seenOf({ key, outcome: toOutcome(seen) }, verdict, categories)
        )
      if (was === undefined) return cmp.pair(key, undefined, verdictOf(seen!, verdict, categories))
      // Equal texts: one record's verdict stands for both.
      const before = verdictOf(was, verdict, categories)
      cmp.pair(key, before, seen === undefined ? undefined : before)
    }
    const waitingBefore = new Waiting()
    const waitingNow = new Waiting()
    const side = (id: number, mine: Waiting, theirs: Waiting, isBefore: boolean) => {
      let from = 0
      let done = false
      return {
        done: () => done,
        /** One page: each record meets its match waiting on the other side, or waits for it. */
        step: (otherDone: boolean) =>
          Effect.map(ledger.recordTexts(id, from, PAGE), (page) => {
            if (page.length < PAGE) done = true
            if (page.length > 0) from = page[page.length - 1]!.ordinal + 1
            for (const r of page) {
              const match = theirs.take(r.key)
              // The other run read to its end without this key: unmatched, no need to wait.
              if (match === undefined && !otherDone) mine.add(r.key, r)
              else if (isBefore) compare(r.key, r, match)
              else compare(r.key, match, r)
            }
          })
      }
    }
    const before = side(previousRunId, waitingBefore, waitingNow, true)
    const now = side(runId, waitingNow, waitingBefore, false)
    while (!before.done() || !now.done()) {
      if (!before.done()) yield* before.step(now.done())
      if (!now.done()) yield* now.step(before.done())
    }
    for (const [key, was] of waitingBefore.drain()) compare(key, was, undefined)
    for (const [key, seen] of waitingNow.drain()) compare(key, undefined, seen)

    const noLonger = cmp.noLonger.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    const codes = [...new Set([...cmp.beforeCounts.keys(), ...cmp.after.keys()])].sort(codeOrder)
    return {
      previousRunId,
      newlyFlagged: listed.filter((f) => !cmp.flaggedBefore.has(f.key)).sort(order),
      noLongerFlagged: noLonger.map((r) => r.key),
      categoryDeltas: codes
        .map((code) => ({
          code,
          before: cmp.beforeCounts.get(code) ?? 0,
          after: cmp.after.get(code) ?? 0,
          added: cmp.into.get(code) ?? 0,
          removed: cmp.outOf.get(code) ?? 0
        }))
        .filter((d) => d.added > 0 || d.removed > 0),
      records: cmp.records(),
      noLongerFlaggedRecords: noLonger
    }
  })
