/**
 * The SQLite ledger: the port's conformance suite (ledger-conformance.ts), and what only SQLite
 * does — rows written by older versions read back, and the file compacted (VACUUM) by retention.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import Database from "better-sqlite3"
import { mkdtempSync } from "node:fs"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Ledger } from "../../src/ledger/ledger.ts"
import { SqliteLedger, makeSqliteLedger, VECTOR_LEDGER_MAP_BYTES } from "../../src/ledger/sqlite-ledger.ts"
import { ledgerConformance } from "./ledger-conformance.ts"
import { migrations } from "../../src/ledger/migrations.ts"

const require = createRequire(import.meta.url)
const tempDb = () => join(mkdtempSync(join(tmpdir(), "svc-ledger-")), "ledger.sqlite")
const entry = (key: string) => ({ key, endpoint: "chat", model: "m", tokens: 1 })

ledgerConformance("SQLite", {
  fresh: async () => tempDb(),
  open: (path, options) => makeSqliteLedger({ path, ...options })
})

// A vector job's ledger, read through a memory map: the same port, the same answers.
ledgerConformance("SQLite, memory-mapped", {
  fresh: async () => tempDb(),
  open: (path, options) => makeSqliteLedger({ path, mapBytes: VECTOR_LEDGER_MAP_BYTES, ...options })
})

describe("SQLite ledger", () => {
  it.scopedLive("in memory (the library's and the plan's ledger): answers kept for the scope, nothing on disk", () =>
    Effect.gen(function* () {
      const ledger = yield* Ledger
      expect(ledger.path).toBe(":memory:")
      yield* ledger.putAnswer(entry("x"), Schema.String, "v")
      yield* ledger.flush
      expect(yield* ledger.answer("x", Schema.String)).toEqual(Option.some("v"))
    }).pipe(Effect.provide(SqliteLedger.layerMemory))
  )

  it.scopedLive("reads a record written before the stage contract v2 (rows alone) as rows with no answer keys", () =>
    Effect.gen(function* () {
      const path = tempDb()
      const ledger = yield* makeSqliteLedger({ path })
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

  it.scopedLive("a ledger from before answers' shapes were kept learns its vectors' shapes when opened", () =>
    Effect.gen(function* () {
      const path = tempDb()
      // A version-4 ledger (the schema up to its migration 4) holding a vector and a text answer.
      const old = new Database(path)
      for (const m of migrations.slice(0, 4)) old.exec(m)
      old.pragma("user_version = 4")
      const insert = old.prepare(
        "INSERT INTO answers (content_key, endpoint, model, answer, tokens, created_at) VALUES (?, 'embeddings', 'm', ?, 1, 1)"
      )
      insert.run("v", Buffer.from(new Float32Array(1536).buffer))
      insert.run("t", '"text"')
      old.close()
      const ledger = yield* makeSqliteLedger({ path })
      expect(yield* ledger.inBytes(["v", "t", "missing"])).toEqual([true, false, false])
    })
  )

  it.scopedLive("an older ledger migrated by another process while this one opens it is migrated once", () =>
    Effect.gen(function* () {
      const path = tempDb()
      const old = new Database(path)
      old.pragma("journal_mode = WAL")
      for (const m of migrations.slice(0, 4)) old.exec(m)
      old.pragma("user_version = 4")
      old.close()
      // Another process takes the write lock, migrates for 300 ms and commits, while this one opens.
      const other = new Worker(
        `const Database = require(${JSON.stringify(require.resolve("better-sqlite3"))})
         const { parentPort, workerData } = require("node:worker_threads")
         const db = new Database(workerData.path)
         db.exec("BEGIN IMMEDIATE")
         parentPort.postMessage("locked")
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300)
         for (const m of workerData.pending) db.exec(m)
         db.pragma("user_version = " + (4 + workerData.pending.length))
         db.exec("COMMIT")
         db.close()`,
        { eval: true, workerData: { path, pending: migrations.slice(4) } }
      )
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void other.once("message", () => resume(Effect.void))),
        () => Effect.promise(() => other.terminate())
      )
      const ledger = yield* makeSqliteLedger({ path })
      expect(yield* ledger.inBytes(["missing"])).toEqual([false])
    })
  )

  describe("retention", () => {
    // One nightly run of `n` records, each outcome ~200 bytes (as a moderation row is).
    const nightlyRun = (ledger: Effect.Effect.Success<ReturnType<typeof makeSqliteLedger>>, n: number) =>
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
          const ledger = yield* makeSqliteLedger({ path })
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
          const ledger = yield* makeSqliteLedger({ path: tempDb() })
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
        const ledger = yield* makeSqliteLedger({ path: tempDb() })
        for (let night = 0; night < 3; night++) yield* nightlyRun(ledger, 3000)
        const result = yield* ledger.gc("nightly", 2, 0)
        expect(result).toMatchObject({ records: 3000, compacted: true })
        expect(result.bytesAfter).toBeLessThan(result.bytesBefore)
      })
    )
  })
})
