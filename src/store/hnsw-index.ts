/**
 * `store: { index: hnsw }`: an approximate KNN index (hnswlib, cosine) beside the sqlite-vec table,
 * which stays the table of record. The index is a sidecar file `<store>.<table>.hnsw`; its labels
 * map to row keys in `<table>_hnsw` (written in the same transactions as the rows). A stamp in
 * `<table>_hnsw_state` says which saved index matches the table: the writer sets it to `dirty` with
 * its first change and to a fresh stamp (also written to `<index>.stamp`) once the index is saved
 * after the last commit. An index whose stamp does not match (a pass interrupted before it saved
 * the index, a file deleted) is rebuilt from the table by the next writer; until then search falls
 * back to the exact scan, so a stale index is never answered from.
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

type Hnswlib = typeof import("hnswlib-node")
type Index = InstanceType<Hnswlib["HierarchicalNSW"]>

/** Loaded with the first hnsw store: a job without one never loads the native module. */
let hnswlib: Hnswlib | undefined
const loadHnswlib = (): Hnswlib => (hnswlib ??= createRequire(import.meta.url)("hnswlib-node") as Hnswlib)

/** Why `index: hnsw` cannot be used here (the native module does not load), or undefined. */
export const hnswUnavailable = (): string | undefined => {
  try {
    loadHnswlib()
    return undefined
  } catch (e) {
    return `store.index: hnsw needs the hnswlib-node native module, which does not load here (${(e as Error).message.split("\n")[0]}); use index: none`
  }
}

/** hnswlib's defaults for 1536-d embeddings: links per node, build and query beam widths. */
export const HNSW = { m: 16, efConstruction: 100, efSearch: 400 } as const

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

const asNumbers = (v: ReadonlyArray<number> | Float32Array): Array<number> => Array.from(v)

/** The row listener that keeps the index in step with the table (sqlite-vec.ts calls it). */
const indexListener =
  (settings: StoreSettings, dim: number) =>
  (db: Database.Database): RowListener => {
    const { HierarchicalNSW } = loadHnswlib()
    const { labels, state } = tables(settings)
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${labels} (label INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);` +
        `CREATE TABLE IF NOT EXISTS ${state} (id INTEGER PRIMARY KEY CHECK (id = 1), stamp TEXT NOT NULL);`
    )
    const q = {
      labelOf: db.prepare<[string], { label: number }>(`SELECT label FROM ${labels} WHERE key = ?`),
      setLabel: db.prepare(`INSERT INTO ${labels} (label, key) VALUES (?, ?)`),
      dropLabel: db.prepare(`DELETE FROM ${labels} WHERE label = ?`),
      setStamp: db.prepare(
        `INSERT INTO ${state} (id, stamp) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET stamp = excluded.stamp`
      )
    }
    let index: Index | undefined
    let nextLabel = 0
    let live = 0
    let dirty = false

    const fresh = (capacity: number) => {
      const i = new HierarchicalNSW("cosine", dim)
      // allowReplaceDeleted: a replaced or removed row's slot is reused, so the file does not grow with reruns.
      i.initIndex({
        maxElements: Math.max(1024, capacity),
        m: HNSW.m,
        efConstruction: HNSW.efConstruction,
        randomSeed: 100,
        allowReplaceDeleted: true
      })
      return i
    }
    const room = (i: Index) => {
      if (live + 1 > i.getMaxElements()) i.resizeIndex(i.getMaxElements() * 2)
    }
    /** The saved index when it is current, else one built from every row of the table. */
    const open = (): Index => {
      if (index !== undefined) return index
      if (indexCurrent(db, settings)) {
        const i = new HierarchicalNSW("cosine", dim)
        i.readIndexSync(indexFile(settings), true)
        const max = db.prepare(`SELECT max(label) AS m, count(*) AS n FROM ${labels}`).get() as {
          m: number | null
          n: number
        }
        nextLabel = (max.m ?? -1) + 1
        live = max.n
        return (index = i)
      }
      const count = (db.prepare(`SELECT count(*) AS n FROM ${quote(settings.table)}`).get() as { n: number }).n
      const i = fresh(count)
      const keys: Array<string> = []
      // Only the index is written while the scan runs (one statement at a time per connection).
      for (const r of db
        .prepare<[], { key: string; embedding: Buffer }>(`SELECT key, embedding FROM ${quote(settings.table)}`)
        .iterate()) {
        i.addPoint(asNumbers(new Float32Array(r.embedding.buffer, r.embedding.byteOffset, dim)), keys.length)
        keys.push(r.key)
      }
      db.exec(`DELETE FROM ${labels}`)
      keys.forEach((key, label) => q.setLabel.run(label, key))
      nextLabel = keys.length
      live = keys.length
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
      put: (key, vector) => {
        const i = open()
        markDirty()
        room(i)
        const label = nextLabel++
        i.addPoint(asNumbers(vector), label, true)
        q.setLabel.run(label, key)
        live++
      },
      remove: (key) => {
        const i = open()
        markDirty()
        const found = q.labelOf.get(key)
        if (found === undefined) return
        i.markDelete(found.label)
        q.dropLabel.run(found.label)
        live--
      },
      commit: () => {
        // Nothing changed and the saved index matches: not even loaded.
        if (index === undefined && indexCurrent(db, settings)) return
        const i = open()
        if (!dirty) return
        const file = indexFile(settings)
        const stamp = randomUUID()
        try {
          i.writeIndexSync(`${file}.tmp`)
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
    const { HierarchicalNSW } = loadHnswlib()
    const meta = settings.metadata
    const dim = (
      db.prepare(`SELECT length(embedding) / 4 AS d FROM ${quote(settings.table)} LIMIT 1`).get() as
        { d: number } | undefined
    )?.d
    const index = dim === undefined ? undefined : new HierarchicalNSW("cosine", dim)
    index?.readIndexSync(indexFile(settings))
    const { labels } = tables(settings)
    const keyOf = db.prepare<[number], { key: string }>(`SELECT key FROM ${labels} WHERE label = ?`)
    const row = db.prepare<[string], Record<string, unknown>>(
      `SELECT key, record_key, text${meta.map((m) => `, ${quote(m)}`).join("")} FROM ${quote(settings.table)} WHERE key = ?`
    )
    const live = (db.prepare(`SELECT count(*) AS n FROM ${labels}`).get() as { n: number }).n
    return {
      exact: false,
      search: (vector, k) => {
        const n = Math.min(k, live)
        if (index === undefined || n === 0) return []
        index.setEf(Math.max(efSearch, n))
        const found = index.searchKnn(asNumbers(vector), n)
        return found.neighbors.flatMap((label, i) => {
          const key = keyOf.get(label)?.key
          const r = key === undefined ? undefined : row.get(key)
          return r === undefined ? [] : [toHit(r, meta, found.distances[i]!)]
        })
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
