/**
 * The changes since the previous run, read from the ledger side by side: the same figures as a
 * comparison of every record of both runs held in maps, holding only the records waiting for
 * their match.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import type { LedgerService, StoredRecord, StoredRecordText } from "../../src/ledger/ledger.ts"
import { recordOp } from "../../src/ledger/pending-answers.ts"
import { changesSince, seenOf, type SeenRecord } from "../../src/report/report-changes.ts"

type Rec = { key: string; text: number; codes: ReadonlyArray<string> | undefined; failed: boolean }
type Flagged = { key: string; verdict: string; categories: ReadonlyArray<string> }

const columns = { verdict: "moderation_verdict", categories: "moderation_categories" }
const stored = (r: Rec): StoredRecord => ({
  key: r.key,
  outcome: r.failed
    ? { _tag: "Failed", error: { stage: "moderate", status: "500", message: "x", attempts: 1 } }
    : {
        _tag: "Done",
        output: {
          keys: [`req-${r.text}`],
          rows: [
            {
              moderation_verdict: r.codes === undefined ? "safe" : "harmful",
              moderation_categories: (r.codes ?? []).join(",")
            }
          ]
        }
      }
})

/** A record as both ledgers store it (`escape`: its text rewritten, as a hand-edited ledger might). */
const textOf = (r: Rec, ordinal: number, escape = (t: string) => t): StoredRecordText => {
  const op = recordOp(1, ordinal, r.key, stored(r).outcome)
  if (op._tag !== "Record") throw new Error("not a record")
  return { ordinal, key: r.key, status: op.status, output: op.output && escape(op.output), error: op.error }
}

/** A ledger holding two runs (1: before, 2: now); it notes every page it serves. */
const fakeLedger = (runs: Record<number, ReadonlyArray<Rec>>, escape?: (t: string) => string) => {
  const reads: Array<{ run: number; from: number }> = []
  const ledger: Pick<LedgerService, "recordTexts"> = {
    recordTexts: (runId, from, limit) =>
      Effect.sync(() => {
        reads.push({ run: runId, from })
        return (runs[runId] ?? []).slice(from, from + limit).map((r, i) => textOf(r, from + i, escape))
      })
  }
  return { ledger, reads }
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
const changes = (before: ReadonlyArray<Rec>, now: ReadonlyArray<Rec>, flagged: ReadonlyArray<Flagged>) =>
  changesSince(fakeLedger({ 1: before, 2: now }).ledger, 1, 2, flagged, columns, byKey, (a, b) => (a < b ? -1 : 1))

/** The comparison as it was: every record of both runs in a map. */
const reference = (before: ReadonlyArray<Rec>, now: ReadonlyArray<Rec>, flagged: ReadonlyArray<Flagged>) => {
  const seen = (rs: ReadonlyArray<Rec>) =>
    new Map(rs.map((r): [string, SeenRecord] => [r.key, seenOf(stored(r), columns.verdict, columns.categories)]))
  const [b, n] = [seen(before), seen(now)]
  const edited = (x: SeenRecord, y: SeenRecord) =>
    x.request !== undefined && y.request !== undefined && x.request !== y.request
  const count = (m: Map<string, number>, c: string) => m.set(c, (m.get(c) ?? 0) + 1)
  let [added, removed, edits] = [0, 0, 0]
  const [into, outOf, after, was] = [new Map(), new Map(), new Map(), new Map()] as Array<Map<string, number>>
  const noLonger: Array<{ key: string; categories: ReadonlyArray<string>; record: string }> = []
  for (const [key, s] of n) {
    const w = b.get(key)
    if (w === undefined) added++
    else if (edited(w, s)) edits++
    for (const c of s.harmful ?? []) {
      count(after!, c)
      if (!w?.harmful?.includes(c)) count(into!, c)
    }
  }
  for (const [key, w] of b) {
    const s = n.get(key)
    if (s === undefined) removed++
    for (const c of w.harmful ?? []) {
      count(was!, c)
      if (!s?.harmful?.includes(c)) count(outOf!, c)
    }
    if (w.harmful !== undefined && s?.harmful === undefined)
      noLonger.push({
        key,
        categories: w.harmful,
        record: s === undefined ? "removed" : edited(w, s) ? "edited" : "unchanged"
      })
  }
  noLonger.sort(byKey)
  const codes = [...new Set([...was!.keys(), ...after!.keys()])].sort()
  return {
    previousRunId: 1,
    newlyFlagged: flagged.filter((f) => f.verdict === "harmful" && b.get(f.key)?.harmful === undefined).sort(byKey),
    noLongerFlagged: noLonger.map((r) => r.key),
    categoryDeltas: codes
      .map((code) => ({
        code,
        before: was!.get(code) ?? 0,
        after: after!.get(code) ?? 0,
        added: into!.get(code) ?? 0,
        removed: outOf!.get(code) ?? 0
      }))
      .filter((d) => d.added > 0 || d.removed > 0),
    records: { added, removed, edited: edits },
    noLongerFlaggedRecords: noLonger
  }
}

const flaggedOf = (now: ReadonlyArray<Rec>): Array<Flagged> =>
  now.filter((r) => r.codes !== undefined).map((r) => ({ key: r.key, verdict: "harmful", categories: r.codes! }))

const recArb = (key: string) =>
  fc.record({
    key: fc.constant(key),
    text: fc.integer({ min: 0, max: 3 }),
    codes: fc.option(fc.subarray(["T1", "T6", "T9"], { minLength: 1 }), { nil: undefined }),
    failed: fc.integer({ min: 0, max: 9 }).map((n) => n === 0)
  })

describe("the changes since the previous run", () => {
  it.effect("are the figures a comparison of both runs held whole gives, in any order of records", () =>
    Effect.sync(() =>
      fc.assert(
        fc.property(
          fc
            .uniqueArray(fc.integer({ min: 0, max: 5000 }), { maxLength: 5000 })
            .chain((ids) =>
              fc.tuple(
                fc.tuple(...ids.map((i) => recArb(`r${i}`))),
                fc.tuple(...ids.map((i) => recArb(`r${i}`))),
                fc.shuffledSubarray(ids.map((_, k) => k)),
                fc.uniqueArray(fc.integer({ min: 5001, max: 9000 }), { maxLength: 300 })
              )
            ),
          ([before, nowAll, kept, fresh]) => {
            // Tonight: some records removed, the rest in another order, some new ones.
            const now = [
              ...kept.map((k) => nowAll[k]!),
              ...fresh.map((i): Rec => ({ key: `r${i}`, text: 0, codes: ["T6"], failed: false }))
            ]
            const flagged = flaggedOf(now)
            expect(Effect.runSync(changes(before, now, flagged))).toEqual(reference(before, now, flagged))
          }
        ),
        { numRuns: 60 }
      )
    )
  )

  it.effect("read a harmful verdict written with a JSON escape as harmful (texts compared, not only searched)", () =>
    Effect.gen(function* () {
      const rec = (key: string, text: number, codes?: ReadonlyArray<string>): Rec => ({
        key,
        text,
        codes,
        failed: false
      })
      const before = [rec("a", 0, ["T9"]), rec("b", 0, ["T6"]), rec("c", 0, ["T1"])]
      const now = [rec("a", 0, ["T9"]), rec("b", 1), rec("d", 0, ["T6"])]
      const escape = (t: string) => t.replaceAll('"harmful"', '"h\\u0061rmful"')
      const { ledger } = fakeLedger({ 1: before, 2: now }, escape)
      const result = yield* changesSince(ledger, 1, 2, [], columns, byKey, (a, b) => (a < b ? -1 : 1))
      expect(result).toEqual(reference(before, now, []))
      expect(result.noLongerFlaggedRecords).toEqual([
        { key: "b", categories: ["T6"], record: "edited" },
        { key: "c", categories: ["T1"], record: "removed" }
      ])
      expect(result.categoryDeltas.find((d) => d.code === "T9")).toBeUndefined()
    })
  )

  it.effect("read both runs page by page side by side, not the previous run whole first", () =>
    Effect.gen(function* () {
      const corpus = Array.from({ length: 20_000 }, (_, i): Rec => ({
        key: `r${i}`,
        text: 0,
        codes: undefined,
        failed: false
      }))
      const { ledger, reads } = fakeLedger({ 1: corpus, 2: corpus })
      const result = yield* changesSince(ledger, 1, 2, [], columns, byKey, (a, b) => (a < b ? -1 : 1))
      expect(result.records).toEqual({ added: 0, removed: 0, edited: 0 })
      // Every page of one run is read before the other run gets more than one page ahead.
      const ahead = reads.reduce(
        (acc, r) => {
          acc.at[r.run] = r.from
          acc.max = Math.max(acc.max, Math.abs((acc.at[1] ?? 0) - (acc.at[2] ?? 0)))
          return acc
        },
        { at: {} as Record<number, number>, max: 0 }
      ).max
      expect(ahead).toBeLessThanOrEqual(2000)
      expect(new Set(reads.map((r) => r.run))).toEqual(new Set([1, 2]))
    })
  )

  it.effect("match a key repeated within a run occurrence by occurrence", () =>
    Effect.gen(function* () {
      const rec = (key: string, text: number, codes?: ReadonlyArray<string>): Rec => ({
        key,
        text,
        codes,
        failed: false
      })
      const before = [rec("a", 0, ["T9"]), rec("b", 0), rec("a", 1)]
      const now = [rec("a", 0), rec("a", 1), rec("a", 2), rec("b", 0)]
      const result = yield* changes(before, now, [])
      // a#1 unchanged (no longer flagged), a#2 unchanged, a#3 added; b unchanged.
      expect(result.records).toEqual({ added: 1, removed: 0, edited: 0 })
      expect(result.noLongerFlaggedRecords).toEqual([{ key: "a", categories: ["T9"], record: "unchanged" }])
    })
  )
})
