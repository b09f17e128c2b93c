/**
 * The store's write thread: the same rows and counts as the in-thread writer, a write failing in
 * the thread told as StoreError with its batch rolled back, a refused commit rolled back too.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { join } from "node:path"
import { openStoreDatabase, openStoreWriter } from "../../src/store/sqlite-vec.ts"
import { openThreadedStoreWriter } from "../../src/store/store-write-thread.ts"
import { StoreError, StoreSettings, type StoreRow, type StoreWriter } from "../../src/store/vector-store.ts"
import { tempDir } from "../engine/run-helpers.ts"

const DIM = 4
const settings = (dir: string): StoreSettings =>
  Schema.decodeUnknownSync(StoreSettings)({
    path: join(dir, "vectors.sqlite"),
    text: "body",
    metadata: ["lang"],
    cleanup: "full"
  })
const row = (v: number, dim = DIM): StoreRow => ({
  vector: Float32Array.from({ length: dim }, (_, j) => (j === 0 ? v : j / (v + 1))),
  text: `t${v}`,
  metadata: { lang: v % 2 ? "en" : "fr" }
})

/** The table and its bookkeeping, pass marks left out (a random id per writer). */
const contents = (store: StoreSettings) => {
  const db = openStoreDatabase(store, { create: false })
  try {
    return {
      rows: db.prepare("SELECT key, vec_to_json(embedding) AS v, lang, record_key, text FROM docs ORDER BY key").all(),
      records: db.prepare("SELECT record_key, hash, rows FROM docs_records ORDER BY record_key").all()
    }
  } finally {
    db.close()
  }
}

/** Two passes: 1,200 records (every 7th with two rows), then a third changed, some gone, some kept. */
const passes = (open: (s: StoreSettings) => StoreWriter, store: StoreSettings) => {
  const first = open(store)
  for (let i = 0; i < 1200; i++) first.put(`r${i}`, "h1", () => (i % 7 ? [row(i)] : [row(i), row(i + 1)]))
  const a = first.commit()
  first.close()
  const second = open(store)
  for (let i = 0; i < 1100; i++) {
    if (i % 10 === 5) second.keep(`r${i}`)
    else second.put(`r${i}`, i % 3 ? "h1" : "h2", () => (i % 2 ? [row(-i)] : [row(i), row(i + 2), row(i + 3)]))
  }
  const b = second.commit()
  second.close()
  return [a, b]
}

const job = (store: StoreSettings) => ({ job: "j", store })

describe("store write thread", () => {
  it("leaves the rows and counts the in-thread writer leaves for the same records", () => {
    const inThread = settings(tempDir())
    const threaded = settings(tempDir())
    const expected = passes((s) => openStoreWriter(s, DIM, job(s)), inThread)
    expect(passes((s) => openThreadedStoreWriter(s, DIM, job(s)), threaded)).toEqual(expected)
    // 110 kept (i % 10 = 5); of the other 990, the 330 with i % 3 = 0 changed; r1100–r1199 gone.
    expect(expected[1]).toEqual({ written: 330, unchanged: 660, deleted: 100 })
    expect(contents(threaded)).toEqual(contents(inThread))
  })

  it("a write failing in the thread is a StoreError at commit, and its whole batch is rolled back", () => {
    const store = settings(tempDir())
    const first = openThreadedStoreWriter(store, DIM, job(store))
    for (let i = 0; i < 500; i++) first.put(`r${i}`, "h1", () => [row(i), row(i + 1)])
    first.commit()
    first.close()
    const before = contents(store)
    const second = openThreadedStoreWriter(store, DIM, job(store))
    second.put("new", "h1", () => [row(1)])
    for (let i = 0; i < 498; i++) second.put(`r${i}`, "h2", () => [row(-i)])
    // The batch's 500th record: its second row (3 values, not 4) is refused by the thread's insert.
    second.put("r499", "h2", () => [row(7), row(8, 3)])
    const failed = (() => {
      try {
        second.commit()
      } catch (e) {
        return e
      }
    })()
    second.close()
    expect(failed).toBeInstanceOf(StoreError)
    expect((failed as StoreError).exitCode).toBe(9)
    expect((failed as StoreError).detail).toMatch(/^record r499: /)
    expect(contents(store)).toEqual(before)
  })

  it("once the thread failed, the next put is refused with its StoreError", () => {
    const store = settings(tempDir())
    const w = openThreadedStoreWriter(store, DIM, job(store))
    w.put("bad", "h", () => [row(1, 3)])
    // Told at the first call after the thread met it (it gets records by the message, a few later).
    let thrown: unknown
    for (let i = 0; i < 100_000 && thrown === undefined; i++) {
      try {
        w.put(`r${i}`, "h", () => [row(i)])
      } catch (e) {
        thrown = e
      }
    }
    w.close()
    expect(thrown).toBeInstanceOf(StoreError)
    expect((thrown as StoreError).detail).toMatch(/^record bad: /)
  })

  it("closed without a commit, it keeps the batches filled and rolls back the open one", () => {
    const store = settings(tempDir())
    const w = openThreadedStoreWriter(store, DIM, job(store))
    // 510: the batch's commit still held with the last records, not yet sent to the thread.
    for (let i = 0; i < 510; i++) w.put(`r${i}`, "h", () => [row(i)])
    w.close()
    expect(contents(store).records.length).toBe(500)
  })

  it("a commit refused before the batch's 500th record rolls the batch back and passes the hook's error on", () => {
    const store = settings(tempDir())
    const refusal = new Error("input changed")
    const w = openThreadedStoreWriter(store, DIM, {
      job: "j",
      beforeCommit: () => {
        throw refusal
      }
    })
    for (let i = 0; i < 499; i++) w.put(`r${i}`, "h", () => [row(i)])
    expect(() => w.put("r499", "h", () => [row(499)])).toThrow(refusal)
    w.close()
    expect(contents(store)).toEqual({ rows: [], records: [] })
  })
})
