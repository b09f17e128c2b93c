/** The ledger: migrations, batched writes through one writer, flush, typed columns, resume queries. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import Database from "better-sqlite3"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { emptyStats } from "../../src/engine/run-stats.ts"
import { decodeAnswer, Ledger, makeLedger } from "../../src/ledger/ledger.ts"

const tempDb = () => join(mkdtempSync(join(tmpdir(), "svc-ledger-")), "ledger.sqlite")
const entry = (key: string) => ({ key, endpoint: "chat", model: "m", tokens: 1 })

describe("ledger", () => {
  it.scopedLive("commits queued writes in batches through one writer, and flush waits for them", () =>
    Effect.gen(function* () {
      const commits: Array<number> = []
      const path = tempDb()
      const ledger = yield* makeLedger({ path, batchSize: 500, onCommit: (keys) => void commits.push(keys.length) })
      const run = yield* ledger.startRun("job", "fp")
      yield* Effect.forEach(
        Array.from({ length: 2000 }, (_, i) => i),
        (i) =>
          Effect.zipRight(
            ledger.putAnswer(entry(`k${i}`), Schema.String, `a${i}`),
            ledger.putRecord(
              run,
              i,
              `r${i}`,
              i % 10 === 0
                ? { _tag: "Failed", error: { stage: "s", status: "x", message: "m", attempts: 1 } }
                : { _tag: "Done", output: { keys: [`k${i}`], rows: [] } }
            )
          ),
        { discard: true }
      )
      yield* ledger.flush
      // Far fewer transactions than writes (4,000 writes).
      expect(commits.length).toBeLessThan(100)
      expect(commits.reduce((a, b) => a + b, 0)).toBe(2000)
      expect(yield* ledger.counts(run)).toEqual({ done: 1800, failed: 200 })
      expect(yield* ledger.answer("k1999", Schema.String)).toEqual(Option.some("a1999"))
      expect(Option.map(yield* ledger.record(run, 10), (r) => r.outcome._tag)).toEqual(Option.some("Failed"))
      // Another connection sees them: they are committed, not just queued.
      const other = new Database(path, { readonly: true })
      expect((other.prepare("SELECT count(*) AS n FROM answers").get() as { n: number }).n).toBe(2000)
      other.close()
    })
  )

  it.scopedLive(
    "serves an answer that is queued but not yet committed, and not to a refresh that started after it",
    () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
        yield* ledger.putAnswer(entry("x"), Schema.String, "v")
        expect(yield* ledger.answer("x", Schema.String)).toEqual(Option.some("v"))
        expect(yield* ledger.answer("x", Schema.String, Date.now() + 60_000)).toEqual(Option.none())
      }).pipe(Effect.provide(Ledger.layerMemory))
  )

  it.scopedLive("decodes a stored answer through the request's Schema, and treats one of another shape as absent", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const Scored = Schema.Struct({ score: Schema.Number, at: Schema.DateFromString })
      const at = new Date("2026-01-02T03:04:05Z")
      yield* ledger.putAnswer(entry("s"), Scored, { score: 0.5, at })
      yield* ledger.flush
      expect(yield* ledger.answer("s", Scored)).toEqual(Option.some({ score: 0.5, at }))
      expect(yield* ledger.answer("s", Schema.String)).toEqual(Option.none())
      expect(yield* ledger.answerJson("s")).toEqual(Option.some({ score: 0.5, at: "2026-01-02T03:04:05.000Z" }))
    }).pipe(Effect.provide(Ledger.layerMemory))
  )

  it.scopedLive("reads a record written before the stage contract v2 (rows alone) as rows with no answer keys", () =>
    Effect.gen(function* () {
      const path = tempDb()
      const ledger = yield* makeLedger({ path })
      const run = yield* ledger.startRun("job", "fp")
      const db = new Database(path)
      db.prepare(
        "INSERT INTO records (run_id, ordinal, key, status, output, error) VALUES (?, 0, 'k', 'done', ?, NULL)"
      ).run(run, '[{"v":1}]')
      db.close()
      expect(yield* ledger.record(run, 0)).toEqual(
        Option.some({ key: "k", outcome: { _tag: "Done", output: { keys: [], rows: [{ v: 1 }] } } })
      )
    })
  )

  it.scopedLive(
    "finds the last run of a job and keeps records and statistics across reopening (migrations run once)",
    () => {
      const path = tempDb()
      return Effect.gen(function* () {
        const first = yield* Effect.scoped(
          Effect.gen(function* () {
            const ledger = yield* makeLedger({ path })
            const id = yield* ledger.startRun("nightly", "fp1")
            yield* ledger.putRecord(id, 3, "k3", { _tag: "Done", output: { keys: ["a"], rows: [{ v: 1 }] } })
            yield* ledger.flush
            yield* ledger.setRun(id, "interrupted", { ...emptyStats, done: 1, stages: { translate_skipped: 2 } })
            return id
          })
        )
        const ledger = yield* makeLedger({ path })
        const last = Option.getOrThrow(yield* ledger.lastRun("nightly"))
        expect(last).toMatchObject({ id: first, status: "interrupted", fingerprint: "fp1" })
        expect(last.stats).toMatchObject({ done: 1, failed: 0, stages: { translate_skipped: 2 } })
        expect(yield* ledger.record(first, 3)).toEqual(
          Option.some({ key: "k3", outcome: { _tag: "Done", output: { keys: ["a"], rows: [{ v: 1 }] } } })
        )
        expect(yield* ledger.lastRun("other")).toEqual(Option.none())
      })
    }
  )

  it.scopedLive("pages through a run's records in ordinal order, from a given ordinal", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const run = yield* ledger.startRun("job", "fp")
      for (const ordinal of [5, 1, 3, 8])
        yield* ledger.putRecord(run, ordinal, `k${ordinal}`, {
          _tag: "Done",
          output: { keys: [], rows: [{ o: ordinal }] }
        })
      yield* ledger.putRecord(run + 1, 2, "other run", { _tag: "Done", output: { keys: [], rows: [] } })
      yield* ledger.flush
      expect((yield* ledger.records(run, 0, 2)).map((r) => r.ordinal)).toEqual([1, 3])
      expect((yield* ledger.records(run, 4, 10)).map((r) => [r.ordinal, r.key])).toEqual([
        [5, "k5"],
        [8, "k8"]
      ])
    }).pipe(Effect.provide(Ledger.layerMemory))
  )

  it.scopedLive(
    "reads many answers in one query: committed and queued ones, none older than `since`, each decoded by its Schema",
    () =>
      Effect.gen(function* () {
        const ledger = yield* Ledger
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
        expect(decodeAnswer(found[1]!, Schema.String)).toEqual(Option.none())
        expect(decodeAnswer(found[2]!, Schema.String)).toEqual(Option.some("queued"))
        expect(found[3]).toBeUndefined()
        expect(decodeAnswer(found[4]!, Schema.String)).toEqual(Option.some("committed"))
        // Text answers are decoded by hand: JSON text holding a string, nothing else.
        expect(decodeAnswer('"a \\"quoted\\" verdict"', Schema.String)).toEqual(Option.some('a "quoted" verdict'))
        expect(decodeAnswer("42", Schema.String)).toEqual(Option.none())
        expect(decodeAnswer("not json", Schema.String)).toEqual(Option.none())
        expect(decodeAnswer(new Uint8Array([1, 2]), Schema.String)).toEqual(Option.none())
        expect(yield* ledger.answersFor(["a", "c"], Date.now() + 60_000)).toEqual([undefined, undefined])
      }).pipe(Effect.provide(Ledger.layerMemory))
  )

  it.scopedLive("reads a run's outcomes by ordinal in one scan (a resumed run's done set)", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const run = yield* ledger.startRun("job", "fp")
      yield* ledger.putRecord(run, 1, "k1", { _tag: "Done", output: { keys: [], rows: [{}] } })
      yield* ledger.putRecord(run, 5000, "k5000", {
        _tag: "Failed",
        error: { stage: "s", status: "x", message: "m", attempts: 1 }
      })
      yield* ledger.putRecord(run + 1, 2, "other run", { _tag: "Done", output: { keys: [], rows: [] } })
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
    }).pipe(Effect.provide(Ledger.layerMemory))
  )

  describe("retention", () => {
    // One nightly run of `n` records, each outcome ~200 bytes (as a moderation row is).
    const nightlyRun = (ledger: Effect.Effect.Success<ReturnType<typeof makeLedger>>, n: number) =>
      Effect.gen(function* () {
        const run = yield* ledger.startRun("nightly", "fp")
        for (let i = 0; i < n; i++) {
          yield* ledger.putRecord(run, i, `r${i}`, {
            _tag: "Done",
            output: { keys: [`k${i}`], rows: [{ verdict: "safe", categories: "", raw: `${"x".repeat(150)}${i}` }] }
          })
        }
        yield* ledger.flush
      })

    it.scopedLive(
      "after a run, the pages older runs' records leave are kept for the next run: no compaction, and the file stops growing",
      () =>
        Effect.gen(function* () {
          const path = tempDb()
          const ledger = yield* makeLedger({ path })
          const results = []
          for (let night = 0; night < 4; night++) {
            yield* nightlyRun(ledger, 3000)
            results.push(yield* ledger.gc("nightly", 2, 0, { nextRunReuses: true }))
          }
          // Nights 3 and 4 each delete one run's records, and neither rewrites the file.
          expect(results.map((r) => [r.records, r.compacted])).toEqual([
            [0, false],
            [0, false],
            [3000, false],
            [3000, false]
          ])
          expect(results[3]!.bytesAfter).toBeLessThanOrEqual(results[2]!.bytesAfter * 1.02)
        })
    )

    it.scopedLive(
      "after a run over a much smaller corpus, the space the next run will not take back is compacted",
      () =>
        Effect.gen(function* () {
          const ledger = yield* makeLedger({ path: tempDb() })
          yield* nightlyRun(ledger, 6000)
          yield* nightlyRun(ledger, 6000)
          yield* nightlyRun(ledger, 300)
          const result = yield* ledger.gc("nightly", 2, 0, { nextRunReuses: true })
          expect(result).toMatchObject({ records: 6000, compacted: true })
          expect(result.bytesAfter).toBeLessThan(result.bytesBefore * 0.8)
        })
    )

    it.scopedLive("gc on demand (no next run assumed) compacts once a quarter of the file is free", () =>
      Effect.gen(function* () {
        const ledger = yield* makeLedger({ path: tempDb() })
        for (let night = 0; night < 3; night++) yield* nightlyRun(ledger, 3000)
        const result = yield* ledger.gc("nightly", 2, 0)
        expect(result).toMatchObject({ records: 3000, compacted: true })
        expect(result.bytesAfter).toBeLessThan(result.bytesBefore)
      })
    )
  })
})
