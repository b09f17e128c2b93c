/**
 * The sqlite-vec store fed by a backfill against the emulator: one vector per record, nothing
 * re-sent or rewritten on a second run, a changed text re-embedded alone, cleanup, KNN.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import { embed as emulatedEmbedding } from "../../src/emulator/models/embeddings.ts"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { embed } from "../../src/stages/embed.ts"
import { openStoreDatabase, openStoreWriter, searchStore, storeSize } from "../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { KEY, requestLog } from "../helpers.ts"
import { pipelineOf, runOnce, tempDir, writeRecords } from "../engine/run-helpers.ts"

const topics = [
  "gardening in spring",
  "repairing a bicycle chain",
  "baking sourdough bread",
  "tax returns for freelancers",
  "training a puppy",
  "hiking in the Alps"
]
const corpus = (n: number, changed: Record<string, string> = {}) =>
  Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    lang: i % 2 ? "en" : "fr",
    body: changed[`d${i}`] ?? `Document ${i} is about ${topics[i % topics.length]}, part ${Math.floor(i / 6)}.`
  }))

const writeInput = writeRecords

const settings = (dir: string, extra: Record<string, unknown> = {}): StoreSettings =>
  Schema.decodeUnknownSync(StoreSettings)({
    path: join(dir, "vectors.sqlite"),
    text: "body",
    metadata: ["lang"],
    ...extra
  })

const pipeline = pipelineOf(embed({ field: "body" }))

const backfill = (
  dir: string,
  emulator: RunningEmulator,
  records: ReadonlyArray<Record<string, unknown>>,
  store: StoreSettings
) => runOnce({ dir, input: writeInput(dir, records), emulator, pipeline, overrides: { store } })

const embedRequests = (log: ReturnType<typeof requestLog>) =>
  log.entries.filter((e) => e.path === "/v1/embeddings").length

describe("sqlite-vec store", () => {
  it.scopedLive("a backfill run twice leaves one vector per record and sends nothing the second time", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const store = settings(dir)
      const first = yield* backfill(dir, emulator, corpus(30), store)
      expect(first.summary.store).toEqual({ written: 30, unchanged: 0, deleted: 0 })
      expect(embedRequests(log)).toBe(30)
      const second = yield* backfill(dir, emulator, corpus(30), store)
      expect(second.summary.status).toBe("finished")
      expect(second.counters.requests).toBe(0)
      expect(embedRequests(log)).toBe(30)
      expect(second.summary.store).toEqual({ written: 0, unchanged: 30, deleted: 0 })
      expect(storeSize(store)).toBe(30)
      const db = openStoreDatabase(store, { create: false })
      const keys = db.prepare("SELECT key FROM docs ORDER BY key").all() as Array<{ key: string }>
      db.close()
      expect(new Set(keys.map((k) => k.key)).size).toBe(30)
    })
  })

  it.scopedLive("a changed text re-embeds only that record and rewrites only its row", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const store = settings(dir)
      yield* backfill(dir, emulator, corpus(20), store)
      const before = embedRequests(log)
      const changedText = "Document 7 is now about volcanoes and lava flows."
      const again = yield* backfill(dir, emulator, corpus(20, { d7: changedText }), store)
      expect(embedRequests(log) - before).toBe(1)
      expect(again.summary.store).toEqual({ written: 1, unchanged: 19, deleted: 0 })
      const hits = searchStore(store, emulatedEmbedding(changedText, "RETRIEVAL_DOCUMENT"), 1)
      expect(hits[0]).toMatchObject({ key: "d7", text: changedText })
      expect(hits[0]!.distance).toBeLessThan(1e-4)
      expect(storeSize(store)).toBe(20)
    })
  })

  it.scopedLive("cleanup: full deletes a record no longer in the source; none keeps it", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const kept = tempDir()
      const cleaned = tempDir()
      const keep = settings(kept, { cleanup: "none" })
      const full = settings(cleaned, { cleanup: "full" })
      yield* backfill(kept, emulator, corpus(10), keep)
      yield* backfill(cleaned, emulator, corpus(10), full)
      const fewer = corpus(10).filter((r) => r.id !== "d4")
      const k = yield* backfill(kept, emulator, fewer, keep)
      const f = yield* backfill(cleaned, emulator, fewer, full)
      expect(k.summary.store?.deleted).toBe(0)
      expect(storeSize(keep)).toBe(10)
      expect(f.summary.store?.deleted).toBe(1)
      expect(storeSize(full)).toBe(9)
      const db = openStoreDatabase(full, { create: false })
      expect(db.prepare("SELECT count(*) AS n FROM docs WHERE key = 'd4'").get()).toEqual({ n: 0 })
      db.close()
    })
  )

  it.scopedLive("a KNN query with a record's text finds that record nearest, with its metadata", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const store = settings(dir)
      const records = corpus(60)
      yield* backfill(dir, emulator, records, store)
      for (const probe of [records[13]!, records[42]!]) {
        const hits = searchStore(store, emulatedEmbedding(probe.body, "RETRIEVAL_QUERY"), 5)
        expect(hits).toHaveLength(5)
        expect(hits[0]).toMatchObject({
          key: probe.id,
          recordKey: probe.id,
          text: probe.body,
          metadata: { lang: probe.lang }
        })
        expect(hits.map((h) => h.distance)).toEqual([...hits.map((h) => h.distance)].sort((a, b) => a - b))
      }
    })
  )

  it.scopedLive("chunk rows are keyed <record>#<index>, and a record with fewer chunks loses the extra rows", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const store = settings(dir)
      const longText = Array.from(
        { length: 300 },
        (_, i) => `Line ${i} about the harbour and its ${i % 9} cranes.`
      ).join(" ")
      const chunked = pipelineOf(embed({ field: "body", long: "chunks", maxTokensPerCall: 1000 }))
      const run = (body: string) =>
        runOnce({
          dir,
          input: writeInput(dir, [
            { id: "x", body },
            { id: "y", body: "short" }
          ]),
          emulator,
          pipeline: chunked,
          overrides: { store }
        })
      yield* run(longText)
      const keysOf = () => {
        const db = openStoreDatabase(store, { create: false })
        const keys = (db.prepare("SELECT key FROM docs").all() as Array<{ key: string }>).map((r) => r.key).sort()
        db.close()
        return keys
      }
      const many = keysOf()
      expect(many.length).toBeGreaterThan(3)
      expect(many.filter((k) => k.startsWith("x#"))).toHaveLength(many.length - 1)
      expect(many).toContain("y")
      yield* run("now short")
      expect(keysOf()).toEqual(["x", "y"])
    })
  )

  it("claims each record key once a pass: a later record with it is told the first one's line", () => {
    const dir = tempDir()
    const pass = () => openStoreWriter(settings(dir), 4, { job: "j" })
    const first = pass()
    expect([first.claim("a", 1), first.claim("b", 2), first.claim("a", 3), first.claim("a", 6)]).toEqual([
      undefined,
      undefined,
      1,
      1
    ])
    first.commit()
    first.close()
    // The next pass (another writer) starts with no key claimed.
    const next = pass()
    expect(next.claim("a", 4)).toBeUndefined()
    next.close()
  })

  it("a record whose rows cannot all be written is left as it was, the batch's last one too", () => {
    const dir = tempDir()
    const row = (v: number) => ({ vector: [v, 1, 0, 0], text: `t${v}`, metadata: { lang: "en" } })
    const rows = (key: string) => {
      const db = openStoreDatabase(settings(dir), { create: false })
      try {
        return db.prepare("SELECT key FROM docs WHERE record_key = ? ORDER BY key").pluck().all(key)
      } finally {
        db.close()
      }
    }
    const first = openStoreWriter(settings(dir), 4, { job: "j" })
    for (let i = 0; i < 500; i++) first.put(`r${i}`, "h1", () => [row(i), row(i + 1)])
    first.commit()
    first.close()
    expect(rows("r499")).toEqual(["r499#0", "r499#1"])
    // 499 records unchanged, then the batch's 500th: its second row (3 values, not 4) is refused.
    const second = openStoreWriter(settings(dir), 4, { job: "j" })
    for (let i = 0; i < 499; i++) second.put(`r${i}`, "h1", () => [row(i), row(i + 1)])
    expect(() => second.put("r499", "h2", () => [row(7), { ...row(8), vector: [1, 2, 3] }])).toThrow()
    second.close()
    expect(rows("r499")).toEqual(["r499#0", "r499#1"])
  })
})
