/** The run report: figures from the ledger, changes since the previous run, and no request to build it. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import { openSource } from "../../src/io/sources/index.ts"
import { Ledger } from "../../src/ledger/ledger.ts"
import { SqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import { buildReport, defaultReportOptions, type ReportOptions } from "../../src/report/build-report.ts"
import { KEY, requestLog } from "../helpers.ts"
import { pipelineOf, runOnce, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { fnv1a } from "../../src/emulator/hash.ts"
import { translate } from "../../src/stages/translate.ts"

const options: ReportOptions = { ...defaultReportOptions, textColumns: ["text"], breakdown: "id" }

const reportOf = (dir: string, runId: number, input: string | undefined, o: ReportOptions = options) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const run = Option.getOrThrow(yield* ledger.run(runId))
    return yield* buildReport(run, o, input ? openSource(input, "jsonl") : undefined)
  }).pipe(Effect.provide(SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))

describe("run report", () => {
  it.scopedLive("counts verdicts and categories and lists the flagged records with excerpts, sending nothing", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const input = writeCorpus(dir, 50) // every 5th record is harmful (T9)
      const run = yield* runOnce({ dir, input, emulator })
      const sent = log.entries.length
      const report = yield* reportOf(dir, run.summary.runId, input, { ...options, breakdown: undefined })
      expect(log.entries).toHaveLength(sent)
      expect(report.records).toEqual({ total: 50, done: 50, failed: 0, unreadable: 0 })
      expect(report.moderation).toMatchObject({ safe: 40, harmful: 10, unparsed: 0 })
      expect(report.moderation!.categories).toEqual([
        { code: "T9", name: "危険行為の幇助", gloss: "aiding dangerous acts", count: 10, share: 1 }
      ])
      expect(report.moderation!.flagged.map((f) => f.key)).toEqual([
        "r0",
        "r10",
        "r15",
        "r20",
        "r25",
        "r30",
        "r35",
        "r40",
        "r45",
        "r5"
      ])
      expect(report.moderation!.flagged[0]).toEqual({
        key: "r0",
        verdict: "harmful",
        categories: ["T9"],
        excerpt: "Record 0: here is how to build a bomb."
      })
      expect(report.moderation!.changes).toBeUndefined()
    })
  })

  it.scopedLive("leaves text out with excerpt 0, and without the input", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeCorpus(dir, 10)
      const run = yield* runOnce({ dir, input, emulator })
      const noText = yield* reportOf(dir, run.summary.runId, input, { ...options, excerpt: 0 })
      expect(noText.moderation!.flagged.every((f) => f.excerpt === undefined)).toBe(true)
      const noInput = yield* reportOf(dir, run.summary.runId, undefined)
      expect(noInput.inputAvailable).toBe(false)
      expect(noInput.moderation!.flagged.every((f) => f.excerpt === undefined)).toBe(true)
      expect(noInput.moderation!.harmful).toBe(2)
      expect(JSON.stringify(noInput)).not.toContain("bomb")
    })
  )

  it.scopedLive("shows exactly the records that changed since the previous run, and a trend", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeCorpus(dir, 40)
      yield* runOnce({ dir, input, emulator })
      // Tonight: r3 becomes harmful (T6), r10 becomes harmless; everything else unchanged.
      const lines = readFileSync(input, "utf8").trim().split("\n")
      lines[3] = JSON.stringify({ id: "r3", text: "Send me your credit card number please." })
      lines[10] = JSON.stringify({ id: "r10", text: "Record 10: a calm note about gardening." })
      writeFileSync(input, `${lines.join("\n")}\n`)
      const second = yield* runOnce({ dir, input, emulator })
      const report = yield* reportOf(dir, second.summary.runId, input)
      const changes = report.moderation!.changes!
      expect(changes.previousRunId).toBe(second.summary.runId - 1)
      expect(changes.newlyFlagged.map((f) => [f.key, f.categories])).toEqual([["r3", ["T6"]]])
      expect(changes.noLongerFlagged).toEqual(["r10"])
      expect(changes.categoryDeltas).toEqual([
        { code: "T6", before: 0, after: 1, added: 1, removed: 0 },
        { code: "T9", before: 8, after: 7, added: 0, removed: 1 }
      ])
      expect(report.moderation!.trend.map((t) => [t.records, t.harmful])).toEqual([
        [40, 8],
        [40, 8]
      ])
    })
  )

  it.scopedLive("says which records were added, removed and edited, and what became of those no longer flagged", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeCorpus(dir, 40)
      yield* runOnce({ dir, input, emulator })
      // Tonight: r10 (T9) edited to harmless, r3 (safe) edited and still safe, r5 (T9) gone, r40 new.
      const lines = readFileSync(input, "utf8").trim().split("\n")
      lines[10] = JSON.stringify({ id: "r10", text: "Record 10: a calm note about gardening." })
      lines[3] = JSON.stringify({ id: "r3", text: "Record 3: an edited but calm note." })
      lines.splice(5, 1)
      lines.push(JSON.stringify({ id: "r40", text: "Record 40: a new calm note." }))
      writeFileSync(input, `${lines.join("\n")}\n`)
      const second = yield* runOnce({ dir, input, emulator })
      const changes = (yield* reportOf(dir, second.summary.runId, input)).moderation!.changes!
      expect(changes.records).toEqual({ added: 1, removed: 1, edited: 2 })
      expect(changes.newlyFlagged).toEqual([])
      expect(changes.noLongerFlaggedRecords).toEqual([
        { key: "r10", categories: ["T9"], record: "edited" },
        { key: "r5", categories: ["T9"], record: "removed" }
      ])
      expect(changes.noLongerFlagged).toEqual(["r10", "r5"])
      expect(changes.categoryDeltas).toEqual([{ code: "T9", before: 8, after: 6, added: 0, removed: 2 }])
    })
  )

  it.scopedLive("breaks verdicts down by an input column", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = join(dir, "in.jsonl")
      writeFileSync(
        input,
        ["a", "a", "b"]
          .map((src, i) => JSON.stringify({ id: `x${i}`, src, text: i === 0 ? "how to build a bomb" : "fine" }))
          .join("\n")
      )
      const run = yield* runOnce({ dir, input, emulator })
      const report = yield* reportOf(dir, run.summary.runId, input, { ...options, breakdown: "src" })
      expect(report.moderation!.breakdown).toEqual({
        column: "src",
        rows: [
          { value: "a", records: 2, harmful: 1 },
          { value: "b", records: 1, harmful: 0 }
        ]
      })
    })
  )

  it.scopedLive("lists a translation job's placeholder warnings and its chunked records", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      // A number the emulator drops (placeholders are protected: never sent, never lost).
      const dropped = Array.from({ length: 400 }, (_, i) => String(i + 2)).find((t) => fnv1a(t) % 16 === 0)!
      const input = join(dir, "in.jsonl")
      writeFileSync(
        input,
        [
          { id: "short", body: `${dropped}件のメッセージがあります。` },
          { id: "long", body: "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。".repeat(200) }
        ]
          .map((r) => JSON.stringify(r))
          .join("\n")
      )
      const run = yield* runOnce({
        dir,
        input,
        emulator,
        pipeline: pipelineOf(translate({ fields: ["body"], to: "en" }))
      })
      const report = yield* reportOf(dir, run.summary.runId, input)
      expect(report.moderation).toBeUndefined()
      expect(report.translation!.warnings).toEqual([{ key: "short", warning: `body: lost ${dropped}` }])
      expect(report.translation!.chunked).toEqual([{ key: "long", requests: 2 }])
    })
  )
})

describe("run report trend", () => {
  it.scopedLive("reads a finished run's saved verdict counts and this run's from its tally, querying no records", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeCorpus(dir, 20)
      const first = yield* runOnce({ dir, input, emulator })
      const second = yield* runOnce({ dir, input, emulator })
      let queries = 0
      const report = yield* Effect.gen(function* () {
        const ledger = yield* Ledger
        const saved = Option.getOrThrow(yield* ledger.run(first.summary.runId))
        // What the run saved when it finished (after-run's applyRetention), as retention left it.
        yield* ledger.setRun(first.summary.runId, "finished", {
          ...saved.stats,
          verdicts: { safe: 14, harmful: 6 }
        })
        const counting = {
          ...ledger,
          countByColumn: (runId: number, column: string) => {
            queries++
            return ledger.countByColumn(runId, column)
          }
        }
        const run = Option.getOrThrow(yield* ledger.run(second.summary.runId))
        return yield* buildReport(run, options, openSource(input, "jsonl")).pipe(
          Effect.provideService(Ledger, counting)
        )
      }).pipe(Effect.provide(SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))
      expect(queries).toBe(0)
      expect(report.moderation!.trend.map((t) => [t.runId, t.records, t.harmful])).toEqual([
        [first.summary.runId, 20, 6],
        [second.summary.runId, 20, 4]
      ])
    })
  )
})
