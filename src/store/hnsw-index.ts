/**
 * `store: { index: hnsw }`: an approximate KNN index (usearch's HNSW, cosine) beside the sqlite-vec table,
 * which stays the table of record. The index is a sidecar file `<store>.<table>.hnsw`; its labels
 * map to rows in `<table>_hnsw` (written in the same transactions as the rows), which also keeps
 * what a hit shows (record key, text, metadata): a vec0 lookup by key reads the row's whole vector
 * chunk (~0.75 ms at 1536-d), ten of them more than the search itself. A stamp in
 * `<table>_hnsw_state` says which saved index matches the table: the writer sets it to `dirty` with
 * its first change and to a fresh stamp (also written to `<index>.stamp`) once the index is saved
 * after the last commit. An index whose stamp does not match (a pass interrupted before it saved
 * the index, a file deleted) is rebuilt from the table by the next writer; until then search falls
 * back to the exact scan, so a stale index is never answered from. A search memory-maps the saved
 * index (`view`: milliseconds at any size) rather than reading it, so one CLI query pays no load.
 */
import type Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import {
  openStoreDatabase,
  openStoreSearcher,
  openStoreWriter,
  quote,
  type RowListener,
  type StoreSearcher,
  toHit
} from "./sqlite-vec.ts"
import { StoreError, type StoreSettings, type StoreWriter } from "./vector-store.ts"

type Usearch = typeof import("usearch")
type Index = InstanceType<Usearch["Index"]>

/** Loaded with the first hnsw store: a job without one never loads the native module. */
let usearch: Usearch | undefined
const loadUsearch = (): Usearch => (usearch ??= createRequire(import.meta.url)("usearch") as Usearch)

/** Why `index: hnsw` cannot be used here (the native module does not load), or undefined. */
export const hnswUnavailable = (): string | undefined => {
  try {
    loadUsearch()
    return undefined
  } catch (e) {
    return `store.index: hnsw needs usearch's native module, which does not load here (${(e as Error).message.split("\n")[0]}); use index: none`
  }
}

/**
 * Links per node, build and query beam widths, from `npm run bench:knn` at 100k × 1536
 * (docs/performance.md): efSearch 1024 keeps recall@10 ≥ 0.95 even on its near-tie synthetic set
 * (0.952; 256 gives 0.91 there) for ~12 ms of CPU a query; on embedded prose 256 already gives 0.99.
 */
export const HNSW = { m: 16, efConstruction: 128, efSearch: 1024 } as const

/** Vectors handed to the index at once: added on every core, and a bounded buffer. */
const ADD_BATCH = 1024

const makeIndex = (dim: number, efSearch: number = HNSW.efSearch): Index => {
  const { Index, MetricKind, ScalarKind } = loadUsearch()
  return new Index({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F32,
    connectivity: HNSW.m,
    expansion_add: HNSW.efConstruction,
    expansion_search: efSearch,
    multi: false
  })
}

export const indexFile = (settings: StoreSettings) => `${settings.path}.${settings.table}.hnsw`
const stampFile = (settings: StoreSettings) => `${indexFile(settings)}.stamp`

const tables = (settings: StoreSettings) => ({
  labels: quote(`${settings.table}_hnsw`),
  state: quote(`${settings.table}_hnsw_state`)
})

const storedStamp = (db: Database.Database, settings: StoreSettings): string | undefined => {
  const { state } = tables(settings)
  const exists = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`)
    .get(`${settings.table}_hnsw_state`)
  if (exists === undefined) return undefined
  return (db.prepare(`SELECT stamp FROM ${state} WHERE id = 1`).get() as { stamp: string } | undefined)?.stamp
}

/** The saved index matches the table: its stamp file names the stamp the table records. */
const indexCurrent = (db: Database.Database, settings: StoreSettings): boolean => {
  const stamp = storedStamp(db, settings)
  if (stamp === undefined || stamp === "dirty" || !existsSync(indexFile(settings))) return false
  try {
    return readFileSync(stampFile(settings), "utf8") === stamp
  } catch {
    return false
  }
}

const asFloat32 = (v: ReadonlyArray<number> | Float32Array): Float32Array =>
  v instanceof Float32Array ? v : Float32Array.from(v)

/** The row listener that keeps the index in step with the table (sqlite-vec.ts calls it). */
const indexListener =
  (settings: StoreSettings, dim: number) =>
  (db: Database.Database): RowListener => {
    const { labels, state } = tables(settings)
    const meta = settings.metadata
    const hitColumns = `record_key, text${meta.map((m) => `, ${quote(m)}`).join("")}`
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${labels} (label INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, record_key TEXT NOT NULL, text TEXT${meta.map((m) => `, ${quote(m)} TEXT`).join("")});` +
        `CREATE TABLE IF NOT EXISTS ${state} (id INTEGER PRIMARY KEY CHECK (id = 1), stamp TEXT NOT NULL);`
    )
    const q = {
      labelOf: db.prepare<[string], { label: number }>(`SELECT label FROM ${labels} WHERE key = ?`),
      setLabel: db.prepare(
        `INSERT INTO ${labels} (label, key, ${hitColumns}) VALUES (?, ?, ?, ?${meta.map(() => ", ?").join("")})`
      ),
      dropLabel: db.prepare(`DELETE FROM ${labels} WHERE label = ?`),
      setStamp: db.prepare(
        `INSERT INTO ${state} (id, stamp) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp`
      )
    }
    let index: Index | undefined
    let nextLabel = 0
    let dirty = false
    /** Vectors put but not yet in the index, by label: added in batches, on every core. */
    const pending = new Map<number, Float32Array>()

    const flush = (i: Index) => {
      if (pending.size === 0) return
      const keys = new BigUint64Array(pending.size)
      const vectors = new Float32Array(pending.size * dim)
      let at = 0
      for (const [label, v] of pending) {
        keys[at] = BigInt(label)
        vectors.set(v, at++ * dim)
      }
      pending.clear()
      i.add(keys, vectors, 0)
    }
    /** The saved index when it is current, else one built from every row of the table. */
    const open = (): Index => {
      if (index !== undefined) return index
      if (indexCurrent(db, settings)) {
        const i = makeIndex(dim)
        i.load(indexFile(settings))
        const max = db.prepare(`SELECT max(label) AS m FROM ${labels}`).get() as { m: number | null }
        nextLabel = (max.m ?? -1) + 1
        return (index = i)
      }
      const i = makeIndex(dim)
      // The labels first, in one statement (no write may run while a scan of the connection is open),
      // then the vectors scanned and added by label.
      db.exec(`DELETE FROM ${labels}`)
      db.exec(
        `INSERT INTO ${labels} (label, key, ${hitColumns}) SELECT row_number() OVER () - 1, key, ${hitColumns} FROM ${quote(settings.table)}`
      )
      const labelOf = new Map(
        db
          .prepare<[], { key: string; label: number }>(`SELECT key, label FROM ${labels}`)
          .all()
          .map((r) => [r.key, r.label])
      )
      for (const r of db
        .prepare<[], { key: string; embedding: Buffer }>(`SELECT key, embedding FROM ${quote(settings.table)}`)
        .iterate()) {
        pending.set(labelOf.get(r.key)!, new Float32Array(r.embedding.buffer, r.embedding.byteOffset, dim).slice())
        if (pending.size >= ADD_BATCH) flush(i)
      }
      flush(i)
      nextLabel = labelOf.size
      markDirty()
      return (index = i)
    }
    const markDirty = () => {
      if (dirty) return
      dirty = true
      // In the writer's transaction: the rows' batch and the stale mark commit together.
      const inTx = db.inTransaction
      if (!inTx) db.exec("BEGIN")
      q.setStamp.run("dirty")
      if (!inTx) db.exec("COMMIT")
    }

    return {
      put: (key, recordKey, row) => {
        const i = open()
        markDirty()
        const label = nextLabel++
        pending.set(label, asFloat32(row.vector).slice())
        q.setLabel.run(label, key, recordKey, row.text, ...meta.map((m) => row.metadata[m] ?? ""))
        if (pending.size >= ADD_BATCH) flush(i)
      },
      remove: (key) => {
        const i = open()
        markDirty()
        const found = q.labelOf.get(key)
        if (found === undefined) return
        // A removed slot is reused by a later add, so the file does not grow with reruns.
        if (!pending.delete(found.label)) i.remove(BigInt(found.label))
        q.dropLabel.run(found.label)
      },
      commit: () => {
        // Nothing changed and the saved index matches: not even loaded.
        if (index === undefined && indexCurrent(db, settings)) return
        const i = open()
        if (!dirty) return
        flush(i)
        const file = indexFile(settings)
        const stamp = randomUUID()
        try {
          i.save(`${file}.tmp`)
          renameSync(`${file}.tmp`, file)
          writeFileSync(stampFile(settings), stamp)
        } catch (e) {
          rmSync(`${file}.tmp`, { force: true })
          throw new StoreError({ path: file, detail: `cannot save the hnsw index: ${(e as Error).message}` })
        }
        // Last: only now does the table name this index as current.
        q.setStamp.run(stamp)
        dirty = false
      }
    }
  }

/**
 * For a writer without the index (`index: none`): its first change marks an index left by an
 * earlier `index: hnsw` pass stale, so that switching back never answers from an outdated index.
 */
export const indexInvalidator =
  (settings: StoreSettings) =>
  (db: Database.Database): RowListener => {
    let done = storedStamp(db, settings) === undefined
    const mark = () => {
      if (done) return
      done = true
      db.prepare(`UPDATE ${tables(settings).state} SET stamp = 'dirty'`).run()
    }
    return { put: mark, remove: mark, commit: () => {} }
  }

/** The same for the write thread (store-write-thread.ts): the statement it runs with its first change. */
export const indexInvalidation =
  (settings: StoreSettings) =>
  (db: Database.Database): string | undefined =>
    storedStamp(db, settings) === undefined ? undefined : `UPDATE ${tables(settings).state} SET stamp = 'dirty'`

export const openHnswWriter = (
  settings: StoreSettings,
  dim: number,
  hooks: { readonly job: string; readonly beforeCommit?: () => void }
): StoreWriter => openStoreWriter(settings, dim, { ...hooks, rows: indexListener(settings, dim) })

/**
 * Approximate KNN through the index, or the exact scan when the index is missing or stale.
 * `exact` in the result says which answered.
 */
export const openHnswSearcher = (
  settings: StoreSettings,
  efSearch: number = HNSW.efSearch
): StoreSearcher & { readonly exact: boolean } => {
  const db = openStoreDatabase(settings, { create: false })
  let current: boolean
  try {
    current = indexCurrent(db, settings)
  } catch (e) {
    db.close()
    throw new StoreError({ path: settings.path, detail: (e as Error).message })
  }
  if (!current) return { ...openStoreSearcher(settings, db), exact: true }
  try {
    const meta = settings.metadata
    const dim = (
      db.prepare(`SELECT length(embedding) / 4 AS d FROM ${quote(settings.table)} LIMIT 1`).get() as
        { d: number } | undefined
    )?.d
    const index = dim === undefined ? undefined : makeIndex(dim, efSearch)
    // Memory-mapped, not read: pages are touched only as the search visits them.
    index?.view(indexFile(settings))
    const { labels } = tables(settings)
    const row = db.prepare<[number], Record<string, unknown>>(
      `SELECT key, record_key, text${meta.map((m) => `, ${quote(m)}`).join("")} FROM ${labels} WHERE label = ?`
    )
    // The graph walk can reach fewer rows than asked for (after removals, or near k = all rows):
    // then the exact scan answers, so a search never silently returns short.
    let exact: StoreSearcher | undefined
    return {
      exact: false,
      search: (vector, k) => {
        if (index === undefined || index.size() === 0 || k < 1) return []
        const wanted = Math.min(k, index.size())
        const found = index.search(asFloat32(vector), wanted, 1)
        const hits = Array.from(found.keys, (label, i) => {
          const r = row.get(Number(label))
          return r === undefined ? undefined : toHit(r, meta, found.distances[i]!)
        }).filter((h) => h !== undefined)
        if (hits.length >= wanted) return hits
        exact ??= openStoreSearcher(settings, db)
        return exact.search(vector, k)
      },
      close: () => db.close()
    }
  } catch (e) {
    db.close()
    throw e instanceof StoreError ? e : new StoreError({ path: settings.path, detail: (e as Error).message })
  }
}

export const searchHnsw = (settings: StoreSettings, vector: ReadonlyArray<number>, k: number) => {
  const searcher = openHnswSearcher(settings)
  try {
    return searcher.search(vector, k)
  } finally {
    searcher.close()
  }
}
