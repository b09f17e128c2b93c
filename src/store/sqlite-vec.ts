/**
 * The sqlite-vec store: a `vec0` virtual table (cosine distance, the spec's measure for these
 * unnormalised vectors) keyed by row key — the record key, or `<record key>#<chunk index>` for
 * chunk rows — with the chosen metadata columns and the text as an auxiliary column; beside it an
 * ordinary table `<table>_records` (record key → content hash, row count, last pass that saw it)
 * that makes the upsert incremental and `cleanup: full` possible.
 *
 * Writes are batched in transactions; each record's rows are replaced in one. A pass interrupted
 * half-way leaves every record either as before or as now; the next pass (a resumed run) finishes
 * the rest and skips what is already current.
 */
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { existsSync, mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { createRequire } from "node:module"
import {
  type Hit,
  StoreError,
  type StoreChanges,
  type StoreRow,
  type StoreSettings,
  type StoreState,
  type StoreWriter
} from "./vector-store.ts"
import { claimTable, StoreOwned } from "./store-owner.ts"

/** Records per transaction. */
export const BATCH = 500

/** The extension's loader, required when a store is first opened: a job without a store never loads it (~20 ms). */
let sqliteVec: typeof import("sqlite-vec") | undefined
const loadVec = (): typeof import("sqlite-vec") =>
  (sqliteVec ??= createRequire(import.meta.url)("sqlite-vec") as typeof import("sqlite-vec"))

/** Float32 bytes as sqlite-vec takes them; a Float32Array's own bytes, not a copy. */
const toBlob = (v: ReadonlyArray<number> | Float32Array) =>
  v instanceof Float32Array
    ? Buffer.from(v.buffer, v.byteOffset, v.byteLength)
    : Buffer.from(Float32Array.from(v).buffer)
export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

export const openStoreDatabase = (
  settings: StoreSettings,
  options: { readonly create: boolean }
): Database.Database => {
  try {
    if (options.create) mkdirSync(dirname(settings.path), { recursive: true })
    const db = new Database(settings.path, { fileMustExist: !options.create })
    db.pragma("journal_mode = WAL")
    db.pragma("synchronous = NORMAL")
    db.pragma("busy_timeout = 5000")
    loadVec().load(db)
    return db
  } catch (e) {
    throw new StoreError({ path: settings.path, detail: (e as Error).message })
  }
}

const rowKey = (recordKey: string, index: number, count: number) =>
  count === 1 && index === 0 ? recordKey : `${recordKey}#${index}`

/**
 * Told of every row the writer inserts or deletes, inside the same transaction and just before
 * the row's statement (an index kept in step with the table: hnsw-index.ts, which may scan the
 * table as it was before this change); `commit` runs after the writer's last commit and cleanup.
 */
export interface RowListener {
  readonly put: (key: string, recordKey: string, row: StoreRow) => void
  readonly remove: (key: string) => void
  readonly commit: () => void
}

/**
 * Opens the store for writing: claims the table for `job` (another job's is refused with
 * StoreOwned before anything is written) and creates its tables when missing.
 */
export const openStoreTables = (
  settings: StoreSettings,
  dim: number,
  job: string
): { readonly db: Database.Database; readonly claimed: StoreWriter["claimed"] } => {
  const db = openStoreDatabase(settings, { create: true })
  const t = quote(settings.table)
  const records = quote(`${settings.table}_records`)
  let claimed: StoreWriter["claimed"]
  try {
    claimed = claimTable(db, settings.table, job, settings.path)
  } catch (e) {
    db.close()
    if (e instanceof StoreOwned) throw e
    throw new StoreError({
      path: settings.path,
      detail: `cannot record the owner of table ${settings.table}: ${(e as Error).message}`
    })
  }
  try {
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${t} USING vec0(key TEXT PRIMARY KEY, embedding float[${dim}] distance_metric=cosine` +
        // vec0 takes bare column names (the settings allow only [A-Za-z0-9_]).
        settings.metadata.map((m) => `, ${m} TEXT`).join("") +
        `, +record_key TEXT, +text TEXT);` +
        `CREATE TABLE IF NOT EXISTS ${records} (record_key TEXT PRIMARY KEY, hash TEXT NOT NULL, rows INTEGER NOT NULL, pass TEXT NOT NULL) WITHOUT ROWID;` +
        // The keys this pass met, with the line of the first record of each: on disk (SQLite's
        // temporary database), not in memory, since a backfill's keys grow with its corpus.
        `CREATE TEMP TABLE IF NOT EXISTS claimed (record_key TEXT PRIMARY KEY, line INTEGER NOT NULL) WITHOUT ROWID;`
    )
  } catch (e) {
    db.close()
    throw new StoreError({
      path: settings.path,
      detail: `cannot create table ${settings.table}: ${(e as Error).message}`
    })
  }
  return { db, claimed }
}

/** The writer's statements (also prepared by the write thread, store-write-thread.ts). */
export const storeStatements = (settings: StoreSettings) => {
  const t = quote(settings.table)
  const records = quote(`${settings.table}_records`)
  const meta = settings.metadata
  return {
    current: `SELECT hash, rows FROM ${records} WHERE record_key = ?`,
    touch: `UPDATE ${records} SET pass = ? WHERE record_key = ?`,
    setRecord: `INSERT INTO ${records} (record_key, hash, rows, pass) VALUES (?, ?, ?, ?) ON CONFLICT (record_key) DO UPDATE SET hash = excluded.hash, rows = excluded.rows, pass = excluded.pass`,
    deleteRow: `DELETE FROM ${t} WHERE key = ?`,
    insert: `INSERT INTO ${t} (key, embedding${meta.map((m) => `, ${quote(m)}`).join("")}, record_key, text) VALUES (?, ?${meta.map(() => ", ?").join("")}, ?, ?)`,
    stale: `SELECT record_key, rows FROM ${records} WHERE pass <> ?`,
    deleteRecord: `DELETE FROM ${records} WHERE record_key = ?`,
    // A key met before keeps its first line (the no-op update makes RETURNING give the row).
    claim: `INSERT INTO temp.claimed (record_key, line) VALUES (?, ?) ON CONFLICT (record_key) DO UPDATE SET line = line RETURNING line`
  }
}

/** Raised by a `beforeCommit` hook: the batch is rolled back and the hook's error passed on as is. */
class CommitRefused {
  constructor(readonly cause: unknown) {}
}

/**
 * `job` claims the table (store-owner.ts): another job's table is refused (StoreOwned) before
 * anything is written. `beforeCommit` runs before each batch is committed; when it throws, the
 * batch is rolled back and its error passed on (the output checks there that the input is still
 * the file it read).
 */
export const openStoreWriter = (
  settings: StoreSettings,
  dim: number,
  hooks: {
    readonly job: string
    readonly beforeCommit?: () => void
    /** Opened on the store's connection once its tables exist. */
    readonly rows?: (db: Database.Database) => RowListener
  }
): StoreWriter => {
  const { db, claimed } = openStoreTables(settings, dim, hooks.job)
  const meta = settings.metadata
  let listener: RowListener | undefined
  try {
    listener = hooks.rows?.(db)
  } catch (e) {
    db.close()
    throw e instanceof StoreError ? e : new StoreError({ path: settings.path, detail: (e as Error).message })
  }
  const pass = randomUUID()
  const sql = storeStatements(settings)
  const q = {
    current: db.prepare<[string], { hash: string; rows: number }>(sql.current),
    touch: db.prepare(sql.touch),
    setRecord: db.prepare(sql.setRecord),
    deleteRow: db.prepare(sql.deleteRow),
    insert: db.prepare(sql.insert),
    stale: db.prepare<[string], { record_key: string; rows: number }>(sql.stale),
    deleteRecord: db.prepare(sql.deleteRecord),
    claim: db.prepare<[string, number], { line: number }>(sql.claim)
  }
  const changes = { written: 0, unchanged: 0, deleted: 0 }
  let inBatch = 0

  /** Before a record's statements: the batch's transaction, open. */
  const begin = () => {
    if (inBatch === 0) db.exec("BEGIN")
  }
  /** After them: the batch committed once it holds BATCH records (never before the last one's statements). */
  const done = () => {
    if (++inBatch < BATCH) return
    try {
      hooks.beforeCommit?.()
    } catch (e) {
      db.exec("ROLLBACK")
      inBatch = 0
      throw new CommitRefused(e)
    }
    db.exec("COMMIT")
    inBatch = 0
  }
  const deleteRows = (recordKey: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const key = rowKey(recordKey, i, count)
      listener?.remove(key)
      q.deleteRow.run(key)
    }
  }
  const fail = (what: string, e: unknown): never => {
    if (e instanceof CommitRefused) throw e.cause
    throw new StoreError({ path: settings.path, detail: `${what}: ${(e as Error).message}` })
  }

  return {
    claimed,
    pass,
    put: (recordKey, hash, rows) => {
      try {
        begin()
        const current = q.current.get(recordKey)
        if (current !== undefined && current.hash === hash) {
          q.touch.run(pass, recordKey)
          changes.unchanged++
          done()
          return
        }
        const next = rows()
        if (current !== undefined) deleteRows(recordKey, current.rows)
        next.forEach((row, i) => {
          const key = rowKey(recordKey, i, next.length)
          listener?.put(key, recordKey, row)
          q.insert.run(key, toBlob(row.vector), ...meta.map((m) => row.metadata[m] ?? ""), recordKey, row.text)
        })
        q.setRecord.run(recordKey, hash, next.length, pass)
        changes.written++
        done()
      } catch (e) {
        fail(`record ${recordKey}`, e)
      }
    },
    keep: (recordKey) => {
      try {
        begin()
        q.touch.run(pass, recordKey)
        done()
      } catch (e) {
        fail(`record ${recordKey}`, e)
      }
    },
    claim: (recordKey, line) => {
      try {
        const first = q.claim.get(recordKey, line)!.line
        return first === line ? undefined : first
      } catch (e) {
        return fail(`record ${recordKey}`, e)
      }
    },
    commit: () => {
      try {
        if (inBatch > 0) db.exec("COMMIT")
        inBatch = 0
        if (settings.cleanup === "full") {
          db.transaction(() => {
            for (const stale of q.stale.all(pass)) {
              deleteRows(stale.record_key, stale.rows)
              q.deleteRecord.run(stale.record_key)
              changes.deleted++
            }
          })()
        }
        listener?.commit()
        return { ...changes } satisfies StoreChanges
      } catch (e) {
        return fail("commit", e)
      }
    },
    close: () => {
      if (db.inTransaction) db.exec("ROLLBACK")
      db.close()
    }
  }
}

/**
 * The table's bookkeeping as a pass left it: its records, and how many of them that pass saw
 * (`pass`: the writer's). A writer that changes or sees a record marks it with its own pass, and
 * one that deletes a record lowers the count: equal counts later mean no writer has been since.
 * Undefined when the store or its table is missing.
 */
export const storeState = (settings: StoreSettings, pass: string): StoreState | undefined => {
  if (!existsSync(settings.path)) return undefined
  const db = openStoreDatabase(settings, { create: false })
  try {
    const records = quote(`${settings.table}_records`)
    const exists = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(`${settings.table}_records`)
    if (exists === undefined) return undefined
    const row = db
      .prepare<[string], { records: number; current: number | null }>(
        `SELECT count(*) AS records, sum(pass = ?) AS current FROM ${records}`
      )
      .get(pass)!
    return { records: row.records, current: row.current ?? 0 }
  } catch (e) {
    throw storeError(settings, e)
  } finally {
    db.close()
  }
}

/** A row of the table as a hit (`distance` given by the query that found it). */
export const toHit = (r: Record<string, unknown>, meta: ReadonlyArray<string>, distance: number): Hit => ({
  key: String(r.key),
  recordKey: String(r.record_key),
  distance,
  text: r.text === null || r.text === undefined ? null : String(r.text),
  metadata: Object.fromEntries(meta.map((m) => [m, String(r[m] ?? "")]))
})

/** Open once, query many times (the benchmark; a long-lived caller). */
export interface StoreSearcher {
  readonly search: (vector: ReadonlyArray<number>, k: number) => ReadonlyArray<Hit>
  readonly close: () => void
}

const storeError = (settings: StoreSettings, e: unknown) =>
  e instanceof StoreError ? e : new StoreError({ path: settings.path, detail: (e as Error).message })

/** Exact KNN: sqlite-vec's brute-force scan, by cosine distance. */
export const openStoreSearcher = (settings: StoreSettings, opened?: Database.Database): StoreSearcher => {
  const db = opened ?? openStoreDatabase(settings, { create: false })
  try {
    const meta = settings.metadata
    const knn = db.prepare<[Buffer, number], Record<string, unknown>>(
      `SELECT key, distance, record_key, text${meta.map((m) => `, ${quote(m)}`).join("")} FROM ${quote(settings.table)} WHERE embedding MATCH ? AND k = ? ORDER BY distance`
    )
    return {
      search: (vector, k) => {
        try {
          return knn.all(toBlob(vector), k).map((r) => toHit(r, meta, Number(r.distance)))
        } catch (e) {
          throw storeError(settings, e)
        }
      },
      close: () => db.close()
    }
  } catch (e) {
    db.close()
    throw storeError(settings, e)
  }
}

/** The `k` nearest rows to `vector` by cosine distance, nearest first. */
export const searchStore = (settings: StoreSettings, vector: ReadonlyArray<number>, k: number): ReadonlyArray<Hit> => {
  const searcher = openStoreSearcher(settings)
  try {
    return searcher.search(vector, k)
  } finally {
    searcher.close()
  }
}

/** Rows in the store (for tests and the run's summary). */
export const storeSize = (settings: StoreSettings): number => {
  const db = openStoreDatabase(settings, { create: false })
  try {
    return (db.prepare(`SELECT count(*) AS n FROM ${quote(settings.table)}`).get() as { n: number }).n
  } finally {
    db.close()
  }
}
