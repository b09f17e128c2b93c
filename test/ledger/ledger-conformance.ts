/**
 * The ledger port's conformance suite: what every adapter must do alike (answers by content key,
 * shared across ledgers opened on the same store, runs, per-record outcomes, counts, retention).
 * Run by sqlite-ledger.test.ts and postgres-ledger.slow.test.ts; what only one adapter does (SQLite's
 * file compaction, a raw legacy row) is tested beside it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema, type Scope } from "effect"
import { emptyStats } from "../../src/engine/run-stats.ts"
import { decodeAnswer } from "../../src/ledger/answer-codec.ts"
import type { LedgerService, RecordOutcome } from "../../src/ledger/ledger.ts"
import { toOutcome } from "../../src/ledger/outcome-codec.ts"
import { Float32Vector } from "../../src/ledger/stored.ts"

export interface OpenOptions {
  readonly batchSize?: number
  readonly onCommit?: (answerKeys: ReadonlyArray<string>) => void
}

/** How a suite reaches an adapter: a new empty store, and a ledger opened on one (many may share it). */
export interface LedgerSubject {
  readonly fresh: () => Promise<string>
  readonly open: (location: string, options?: OpenOptions) => Effect.Effect<LedgerService, unknown, Scope.Scope>
}

const entry = (key: string) => ({ key, endpoint: "chat", model: "m", tokens: 1 })
const done = (keys: ReadonlyArray<string>, row: Record<string, unknown> = {}): RecordOutcome => ({
  _tag: "Done",
  output: { keys, rows: [row] }
})
const failed: RecordOutcome = { _tag: "Failed", error: { stage: "s", status: "x", message: "m", attempts: 1 } }

export const ledgerConformance = (name: string, subject: LedgerSubject) =>
  describe(`ledger port: ${name}`, () => {
    const fresh = (options?: OpenOptions) =>
      Effect.flatMap(
        Effect.promise(() => subject.fresh()),
        (location) => subject.open(location, options)
      )

    it.scopedLive("commits queued writes in batches, and flush makes them visible to another ledger on the store", () =>
      Effect.gen(function* () {
        const commits: Array<number> = []
        const location = yield* Effect.promise(() => subject.fresh())
        const ledger = yield* subject.open(location, {
          batchSize: 500,
          onCommit: (keys) => void commits.push(keys.length)
        })
        const run = yield* ledger.startRun("job", "fp")
        yield* Effect.forEach(
          Array.from({ length: 2000 }, (_, i) => i),
          (i) =>
            Effect.zipRight(
              ledger.putAnswer(entry(`k${i}`), Schema.String, `a${i}`),
              ledger.putRecord(run, i, `r${i}`, i % 10 === 0 ? failed : done([`k${i}`]))
            ),
          { discard: true }
        )
        yield* ledger.flush
        // Far fewer commits than writes (4,000 writes).
        expect(commits.length).toBeLessThan(100)
        expect(commits.reduce((a, b) => a + b, 0)).toBe(2000)
        expect(yield* ledger.counts(run)).toEqual({ done: 1800, failed: 200 })
        expect(yield* ledger.answer("k1999", Schema.String)).toEqual(Option.some("a1999"))
        expect(Option.map(yield* ledger.record(run, 10), (r) => r.outcome._tag)).toEqual(Option.some("Failed"))
        // Committed, not just queued: another ledger on the same store sees them.
        const other = yield* subject.open(location)
        const found = yield* other.answersFor(Array.from({ length: 2000 }, (_, i) => `k${i}`))
        expect(found.filter((a) => a !== undefined)).toHaveLength(2000)
        expect(yield* other.counts(run)).toEqual({ done: 1800, failed: 200 })
      })
    )

    it.scopedLive(
      "serves an answer that is queued but not yet committed, and not to a refresh that started after it",
      () =>
        Effect.gen(function* () {
          const ledger = yield* fresh()
          yield* ledger.putAnswer(entry("x"), Schema.String, "v")
          expect(yield* ledger.answer("x", Schema.String)).toEqual(Option.some("v"))
          expect(yield* ledger.hasAnswer("x")).toBe(true)
          expect(yield* ledger.answer("x", Schema.String, Date.now() + 60_000)).toEqual(Option.none())
          expect(yield* ledger.hasAnswer("y")).toBe(false)
        })
    )

    it.scopedLive("tells when the newest committed answer was written: later after a rewrite of an old key", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        expect(yield* ledger.lastAnswerAt).toBe(0)
        yield* ledger.putAnswer(entry("a"), Schema.String, "1")
        yield* ledger.flush
        const first = yield* ledger.lastAnswerAt
        expect(first).toBeGreaterThan(0)
        yield* Effect.sleep("5 millis")
        yield* ledger.putAnswer(entry("a"), Schema.String, "2")
        yield* ledger.flush
        expect(yield* ledger.lastAnswerAt).toBeGreaterThan(first)
      })
    )

    it.scopedLive(
      "decodes a stored answer through the request's Schema, and treats one of another shape as absent",
      () =>
        Effect.gen(function* () {
          const ledger = yield* fresh()
          const Scored = Schema.Struct({ score: Schema.Number, at: Schema.DateFromString })
          const at = new Date("2026-01-02T03:04:05Z")
          yield* ledger.putAnswer(entry("s"), Scored, { score: 0.5, at })
          yield* ledger.flush
          expect(yield* ledger.answer("s", Scored)).toEqual(Option.some({ score: 0.5, at }))
          expect(yield* ledger.answer("s", Schema.String)).toEqual(Option.none())
          expect(yield* ledger.answerJson("s")).toEqual(Option.some({ score: 0.5, at: "2026-01-02T03:04:05.000Z" }))
          expect(yield* ledger.hasAnswer("s")).toBe(true)
        })
    )

    it.scopedLive("stores a vector as Float32 bytes and reads it back by key, in a window and as plain data", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        const vector = Array.from({ length: 1536 }, (_, i) => Math.fround(Math.sin(i) / 3))
        yield* ledger.putAnswer(entry("v"), Float32Vector, vector)
        yield* ledger.flush
        // Read back as a Float32Array over the stored bytes (no array of numbers made).
        const read = yield* ledger.answer("v", Float32Vector)
        expect(Option.getOrThrow(read)).toBeInstanceOf(Float32Array)
        expect(Option.map(read, (v) => Array.from(v))).toEqual(Option.some(vector))
        const [stored] = yield* ledger.answersFor(["v"])
        expect(stored).toBeInstanceOf(Uint8Array)
        expect((stored as Uint8Array).byteLength).toBe(1536 * 4)
        expect(Option.map(decodeAnswer(stored!, Float32Vector), (v) => Array.from(v))).toEqual(Option.some(vector))
        // As plain data a vector is a Float32Array (the bytes as they are: the output copies them).
        expect(Option.map(yield* ledger.answerJson("v"), (v) => Array.from(v as Float32Array))).toEqual(
          Option.some(vector)
        )
      })
    )

    it.scopedLive(
      "reads many answers in one query: committed and queued ones, none older than `since`, in the keys' order",
      () =>
        Effect.gen(function* () {
          const ledger = yield* fresh()
          const Scored = Schema.Struct({ score: Schema.Number })
          yield* ledger.putAnswer(entry("a"), Schema.String, "committed")
          yield* ledger.putAnswer(entry("b"), Scored, { score: 2 })
          yield* ledger.flush
          yield* ledger.putAnswer(entry("c"), Schema.String, "queued")
          // In the keys' order, a repeated key answered at each place, a missing one undefined.
          const found = yield* ledger.answersFor(["a", "b", "c", "missing", "a"])
          expect(found).toHaveLength(5)
          expect(decodeAnswer(found[0]!, Schema.String)).toEqual(Option.some("committed"))
          expect(decodeAnswer(found[1]!, Scored)).toEqual(Option.some({ score: 2 }))
          expect(decodeAnswer(found[2]!, Schema.String)).toEqual(Option.some("queued"))
          expect(found[3]).toBeUndefined()
          expect(decodeAnswer(found[4]!, Schema.String)).toEqual(Option.some("committed"))
          expect(yield* ledger.answersFor(["a", "c"], Date.now() + 60_000)).toEqual([undefined, undefined])
          // A window of 512 keys, every other one stored: each answer at its key's place.
          const keys = Array.from({ length: 512 }, (_, i) => `w${i}`)
          for (let i = 0; i < keys.length; i += 2) yield* ledger.putAnswer(entry(keys[i]!), Schema.String, `v${i}`)
          yield* ledger.flush
          const window = yield* ledger.answersFor(keys)
          expect(window.map((s, i) => (s === undefined ? undefined : [i, decodeAnswer(s, Schema.String)]))).toEqual(
            keys.map((_, i) => (i % 2 === 0 ? [i, Option.some(`v${i}`)] : undefined))
          )
        })
    )

    it.scopedLive(
      "tells which keys have an answer in bytes (a vector), committed, queued, refreshed or removed, in the keys' order",
      () =>
        Effect.gen(function* () {
          const ledger = yield* fresh()
          const vector = Array.from({ length: 1536 }, (_, i) => i / 1536)
          yield* ledger.putAnswer(entry("v"), Float32Vector, vector)
          yield* ledger.putAnswer(entry("t"), Schema.String, "text")
          yield* ledger.flush
          yield* ledger.putAnswer(entry("q"), Float32Vector, vector)
          // A vector, a JSON text, a missing key, a queued vector, a repeated key.
          expect(yield* ledger.inBytes(["v", "t", "missing", "q", "v"])).toEqual([true, false, false, true, true])
          expect(yield* ledger.inBytes(["v", "q"], Date.now() + 60_000)).toEqual([false, false])
          yield* ledger.flush
          expect(yield* ledger.inBytes(["q"])).toEqual([true])
          // A vector's key answered again as text (an older stage's shape) is no longer in bytes.
          yield* ledger.putAnswer(entry("v"), Schema.String, "now text")
          yield* ledger.flush
          expect(yield* ledger.inBytes(["v"])).toEqual([false])
          // Retention removes the answer: its key is no longer found.
          const run = yield* ledger.startRun("job", "fp")
          yield* ledger.setRun(run, "finished", emptyStats)
          yield* ledger.gc("job", 1, Date.now() + 60_000)
          expect(yield* ledger.inBytes(["q", "t"])).toEqual([false, false])
        })
    )

    it.scopedLive("a refreshed answer replaces the older one under its key", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        yield* ledger.putAnswer(entry("r"), Schema.String, "old")
        yield* ledger.flush
        yield* Effect.sleep("5 millis")
        const since = Date.now()
        yield* Effect.sleep("5 millis")
        expect(yield* ledger.answer("r", Schema.String, since)).toEqual(Option.none())
        yield* ledger.putAnswer(entry("r"), Schema.String, "new")
        yield* ledger.flush
        expect(yield* ledger.answer("r", Schema.String, since)).toEqual(Option.some("new"))
        expect(yield* ledger.answersFor(["r"], since)).toEqual(['"new"'])
      })
    )

    it.scopedLive(
      "two workers storing the same answers at once, in opposite orders, store each key once and agree on it",
      () =>
        Effect.gen(function* () {
          const location = yield* Effect.promise(() => subject.fresh())
          const [one, two] = [yield* subject.open(location), yield* subject.open(location)]
          const keys = Array.from({ length: 300 }, (_, i) => `race${i}`)
          const store = (ledger: LedgerService, order: ReadonlyArray<string>) =>
            Effect.zipRight(
              Effect.forEach(order, (k) => ledger.putAnswer(entry(k), Schema.String, `answer of ${k}`), {
                discard: true
              }),
              ledger.flush
            )
          yield* Effect.all([store(one, keys), store(two, [...keys].reverse())], { concurrency: "unbounded" })
          yield* Effect.all(
            [one.putAnswer(entry("same"), Schema.String, "A"), two.putAnswer(entry("same"), Schema.String, "A")],
            {
              concurrency: "unbounded"
            }
          )
          yield* Effect.all([one.flush, two.flush], { concurrency: "unbounded" })
          const seen = [yield* one.answersFor([...keys, "same"]), yield* two.answersFor([...keys, "same"])]
          expect(seen[0]).toEqual(seen[1])
          expect(seen[0]!.map((s) => decodeAnswer(s!, Schema.String))).toEqual([
            ...keys.map((k) => Option.some(`answer of ${k}`)),
            Option.some("A")
          ])
          // A third ledger opened on the store later reads the same: the answers are shared, not per ledger.
          const third = yield* subject.open(location)
          expect(yield* third.answer("race7", Schema.String)).toEqual(Option.some("answer of race7"))
        })
    )

    it.scopedLive(
      "finds the last run of a job and keeps records and statistics across reopening (migrations run once)",
      () =>
        Effect.gen(function* () {
          const location = yield* Effect.promise(() => subject.fresh())
          const first = yield* Effect.scoped(
            Effect.gen(function* () {
              const ledger = yield* subject.open(location)
              const id = yield* ledger.startRun("nightly", "fp1")
              yield* ledger.putRecord(id, 3, "k3", done(["a"], { v: 1 }))
              yield* ledger.flush
              yield* ledger.setRun(id, "interrupted", { ...emptyStats, done: 1, stages: { translate_skipped: 2 } })
              return id
            })
          )
          const ledger = yield* subject.open(location)
          const last = Option.getOrThrow(yield* ledger.lastRun("nightly"))
          expect(last).toMatchObject({ id: first, status: "interrupted", fingerprint: "fp1" })
          expect(last.stats).toMatchObject({ done: 1, failed: 0, stages: { translate_skipped: 2 } })
          expect(yield* ledger.record(first, 3)).toEqual(Option.some({ key: "k3", outcome: done(["a"], { v: 1 }) }))
          expect(yield* ledger.lastRun("other")).toEqual(Option.none())
        })
    )

    it.scopedLive("runs: started running, their origin and statistics set, listed newest first per job", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        const before = Date.now()
        const a = yield* ledger.startRun("nightly", "fpA")
        const other = yield* ledger.startRun("weekly", "fpW")
        const b = yield* ledger.startRun("nightly", "fpB")
        expect(new Set([a, other, b]).size).toBe(3)
        const started = Option.getOrThrow(yield* ledger.run(a))
        expect(started).toMatchObject({ id: a, job: "nightly", fingerprint: "fpA", status: "running" })
        expect(started).toMatchObject({ finishedAt: null, service: null, updatedAt: null })
        expect(started.startedAt).toBeGreaterThanOrEqual(before)
        expect(started.stats).toMatchObject({ done: 0, failed: 0 })
        yield* ledger.setRunService(a, "emulator")
        yield* ledger.setRun(a, "running", { ...emptyStats, done: 5 })
        const saving = Option.getOrThrow(yield* ledger.run(a))
        expect(saving).toMatchObject({ status: "running", finishedAt: null, service: "emulator" })
        expect(saving.updatedAt).toBeGreaterThanOrEqual(before)
        yield* ledger.setRun(a, "finished", { ...emptyStats, done: 7, verdicts: { safe: 7 } })
        const finished = Option.getOrThrow(yield* ledger.run(a))
        expect(finished).toMatchObject({ status: "finished", stats: { done: 7, verdicts: { safe: 7 } } })
        expect(finished.finishedAt).toBeGreaterThanOrEqual(before)
        expect((yield* ledger.runs("nightly", 10)).map((r) => r.id)).toEqual([b, a])
        expect((yield* ledger.runs("nightly", 1)).map((r) => r.id)).toEqual([b])
        expect(Option.map(yield* ledger.lastRun("weekly"), (r) => r.id)).toEqual(Option.some(other))
        expect(yield* ledger.run(b + 1000)).toEqual(Option.none())
      })
    )

    it.scopedLive("pages through a run's records in ordinal order, from a given ordinal", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        const run = yield* ledger.startRun("job", "fp")
        for (const ordinal of [5, 1, 3, 8])
          yield* ledger.putRecord(run, ordinal, `k${ordinal}`, done([], { o: ordinal }))
        yield* ledger.putRecord(run + 1, 2, "other run", done([]))
        yield* ledger.flush
        expect((yield* ledger.records(run, 0, 2)).map((r) => r.ordinal)).toEqual([1, 3])
        expect((yield* ledger.records(run, 4, 10)).map((r) => [r.ordinal, r.key, r.outcome])).toEqual([
          [5, "k5", done([], { o: 5 })],
          [8, "k8", done([], { o: 8 })]
        ])
      })
    )

    it.scopedLive(
      "pages through a run's records as stored text: equal outcomes, equal text; each decodes to its outcome",
      () =>
        Effect.gen(function* () {
          const ledger = yield* fresh()
          const run = yield* ledger.startRun("job", "fp")
          const harmful = done(["ka"], { verdict: "harmful", categories: "T2,T9", note: 'é "q"' })
          yield* ledger.putRecord(run, 0, "a", harmful)
          yield* ledger.putRecord(run, 1, "b", failed)
          yield* ledger.putRecord(run, 2, "c", done(["kc"], { verdict: "safe" }))
          yield* ledger.putRecord(run + 1, 0, "a", harmful)
          yield* ledger.putRecord(run + 1, 2, "c", done(["kc2"], { verdict: "safe" }))
          yield* ledger.flush
          const page = yield* ledger.recordTexts(run, 0, 2)
          expect(page.map((r) => [r.ordinal, r.key, r.status])).toEqual([
            [0, "a", "done"],
            [1, "b", "failed"]
          ])
          expect(page[0]!.error).toBeNull()
          expect(page[1]!.output).toBeNull()
          expect(page.map((r) => toOutcome(r))).toEqual([harmful, failed])
          const [a, , c] = yield* ledger.recordTexts(run, 0, 10)
          const [a2, c2] = yield* ledger.recordTexts(run + 1, 0, 10)
          expect(a2!.output).toBe(a!.output)
          expect(c2!.output).not.toBe(c!.output)
          // The same page `records` decodes.
          expect((yield* ledger.records(run, 1, 10)).map((r) => [r.ordinal, r.key, r.outcome])).toEqual(
            (yield* ledger.recordTexts(run, 1, 10)).map((r) => [r.ordinal, r.key, toOutcome(r)])
          )
        })
    )

    it.scopedLive(
      "a record written again (a retried one) keeps its last outcome; putRecords writes a window at once",
      () =>
        Effect.gen(function* () {
          const ledger = yield* fresh()
          const run = yield* ledger.startRun("job", "fp")
          yield* ledger.putRecord(run, 0, "k0", failed)
          yield* ledger.flush
          yield* ledger.putRecord(run, 0, "k0", done(["a0"]))
          yield* ledger.putRecords(
            run,
            Array.from({ length: 1000 }, (_, i) => ({
              ordinal: i + 1,
              key: `k${i + 1}`,
              outcome: i < 990 ? done([]) : failed
            }))
          )
          yield* ledger.flush
          expect(yield* ledger.record(run, 0)).toEqual(Option.some({ key: "k0", outcome: done(["a0"]) }))
          expect(yield* ledger.counts(run)).toEqual({ done: 991, failed: 10 })
          expect(yield* ledger.counts(run + 1)).toEqual({ done: 0, failed: 0 })
        })
    )

    it.scopedLive("reads a run's outcomes by ordinal in one scan (a resumed run's done set)", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        const run = yield* ledger.startRun("job", "fp")
        yield* ledger.putRecord(run, 1, "k1", done([]))
        yield* ledger.putRecord(run, 5000, "k5000", failed)
        yield* ledger.putRecord(run + 1, 2, "other run", done([]))
        yield* ledger.flush
        const statuses = yield* ledger.recordStatuses(run)
        expect(statuses.size).toBe(2)
        expect([0, 1, 2, 4999, 5000, 5001, 10 ** 9].map(statuses.get)).toEqual([
          undefined,
          "done",
          undefined,
          undefined,
          "failed",
          undefined,
          undefined
        ])
      })
    )

    it.scopedLive("counts a run's done records by one output column of their first row", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        const run = yield* ledger.startRun("job", "fp")
        const verdicts = ["safe", "unsafe", "safe", "safe", null]
        for (const [i, v] of verdicts.entries())
          yield* ledger.putRecord(run, i, `k${i}`, done([], v === null ? { other: 1 } : { verdict: v, "odd name": v }))
        yield* ledger.putRecord(run, 9, "k9", failed)
        yield* ledger.flush
        const byValue = (rows: ReadonlyArray<{ value: string | null; n: number }>) =>
          Object.fromEntries(rows.map((r) => [String(r.value), r.n]))
        expect(byValue(yield* ledger.countByColumn(run, "verdict"))).toEqual({ safe: 3, unsafe: 1, null: 1 })
        expect(byValue(yield* ledger.countByColumn(run, "odd name"))).toEqual({ safe: 3, unsafe: 1, null: 1 })
      })
    )

    it.scopedLive("lists record keys that more than one record of a run has, with the first one's ordinal", () =>
      Effect.gen(function* () {
        const ledger = yield* fresh()
        const run = yield* ledger.startRun("job", "fp")
        for (const [ordinal, key] of [
          [0, "a"],
          [1, "b"],
          [2, "a"],
          [3, "c"],
          [4, "a"],
          [5, "c"]
        ] as const)
          yield* ledger.putRecord(run, ordinal, key, done([]))
        yield* ledger.putRecord(run + 1, 0, "b", done([]))
        yield* ledger.flush
        expect(yield* ledger.duplicateKeys(run)).toEqual(
          new Map([
            ["a", { first: 0, count: 3 }],
            ["c", { first: 3, count: 2 }]
          ])
        )
      })
    )

    it.scopedLive(
      "retention: deletes older runs' records (their runs stay) and old answers no kept record uses, in any job",
      () =>
        Effect.gen(function* () {
          const ledger = yield* fresh()
          const runs: Array<number> = []
          for (let night = 0; night < 3; night++) {
            const run = yield* ledger.startRun("nightly", `fp${night}`)
            runs.push(run)
            for (let i = 0; i < 10; i++) yield* ledger.putRecord(run, i, `r${i}`, done([`n${night}-${i}`]))
          }
          const weekly = yield* ledger.startRun("weekly", "fpW")
          yield* ledger.putRecord(weekly, 0, "w", done(["n0-0"]))
          for (let night = 0; night < 3; night++)
            for (let i = 0; i < 10; i++) yield* ledger.putAnswer(entry(`n${night}-${i}`), Schema.String, "v")
          yield* ledger.putAnswer(entry("orphan"), Schema.String, "v")
          yield* ledger.flush
          // Answers all older than the cut-off: only those a kept record uses stay.
          const result = yield* ledger.gc("nightly", 2, Date.now() + 1000)
          expect(result).toMatchObject({ runs: [runs[0]], records: 10 })
          // Night 0's answers go, but the one the weekly job's record uses; the orphan goes too.
          expect(result.answers).toBe(10)
          expect(result.bytesBefore).toBeGreaterThan(0)
          expect(result.bytesAfter).toBeGreaterThan(0)
          expect(yield* ledger.counts(runs[0]!)).toEqual({ done: 0, failed: 0 })
          expect(yield* ledger.counts(runs[1]!)).toEqual({ done: 10, failed: 0 })
          expect(Option.isSome(yield* ledger.run(runs[0]!))).toBe(true)
          expect(yield* ledger.hasAnswer("n0-0")).toBe(true)
          expect(yield* ledger.hasAnswer("n0-1")).toBe(false)
          expect(yield* ledger.hasAnswer("n1-1")).toBe(true)
          expect(yield* ledger.hasAnswer("orphan")).toBe(false)
          // Answers newer than the cut-off stay, used or not; nothing more to delete.
          yield* ledger.putAnswer(entry("fresh"), Schema.String, "v")
          const again = yield* ledger.gc("nightly", 2, Date.now() - 60_000)
          expect(again).toMatchObject({ runs: [], records: 0, answers: 0 })
          expect(yield* ledger.hasAnswer("fresh")).toBe(true)
        })
    )
  })
