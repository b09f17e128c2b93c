/**
 * The sqlite-vec writer whose writes run on a worker thread (store-write-worker.ts), so that the
 * store's inserts and commits overlap the output pass's ledger reads and Parquet writing on the
 * main thread. The port's semantics are the in-thread writer's (sqlite-vec.ts):
 * - `put` reads the record's stored hash on the main thread's own connection (WAL: a reader beside
 *   the writer; each key is claimed once a pass, so this pass's writes never change a key read
 *   later) and calls `rows` only for a changed record; the write thread checks the hash again;
 * - `claim` stays synchronous, on the main connection's temporary table;
 * - transactions per BATCH records as before, `beforeCommit` checked on the main thread before the
 *   batch's commit is sent; a write that fails in the thread rolls its batch back and surfaces as
 *   StoreError at the next call (put, keep, commit), which waits for it.
 * Vectors travel as one transferred Float32Array per message of CHUNK records; at most IN_FLIGHT
 * messages are queued (the main thread waits beyond), which bounds the memory held.
 * Not for `index: hnsw`: its row listener runs on the writer's connection (the in-thread writer).
 */
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads"
import type Database from "better-sqlite3"
import { BATCH, openStoreTables, storeStatements } from "./sqlite-vec.ts"
import { STORE_WRITE_WORKER } from "./store-write-worker.ts"
import { StoreError, type StoreChanges, type StoreRow, type StoreSettings, type StoreWriter } from "./vector-store.ts"

const CHUNK = 128
const IN_FLIGHT = 8
/** Slots of the shared state (the worker's source names them alike). */
const STATE = { processed: 0, status: 1, closed: 2 } as const
const STATUS = { running: 0, finished: 1, failed: 2 } as const

type Op = ReadonlyArray<unknown>

export const openThreadedStoreWriter = (
  settings: StoreSettings,
  dim: number,
  hooks: {
    readonly job: string
    readonly beforeCommit?: () => void
    /** A statement the thread runs with the first change (marks a stale HNSW index), read on the store's connection. */
    readonly invalidate?: (db: Database.Database) => string | undefined
  }
): StoreWriter => {
  const { db, claimed } = openStoreTables(settings, dim, hooks.job)
  const sql = storeStatements(settings)
  const error = (detail: string) => new StoreError({ path: settings.path, detail })
  let worker: Worker
  let port: MessageChannel["port1"]
  const state = new Int32Array(new SharedArrayBuffer(12))
  const pass = randomUUID()
  let q: {
    current: Database.Statement<[string], { hash: string; rows: number }>
    claim: Database.Statement<[string, number], { line: number }>
  }
  try {
    q = { current: db.prepare(sql.current), claim: db.prepare(sql.claim) }
    const invalidate = hooks.invalidate?.(db)
    const require = createRequire(import.meta.url)
    const channel = new MessageChannel()
    port = channel.port1
    worker = new Worker(STORE_WRITE_WORKER, {
      eval: true,
      workerData: {
        path: settings.path,
        sql,
        pass,
        cleanup: settings.cleanup === "full",
        invalidate,
        betterSqlite3: require.resolve("better-sqlite3"),
        vec: (require("sqlite-vec") as typeof import("sqlite-vec")).getLoadablePath(),
        state: state.buffer,
        port: channel.port2
      },
      transferList: [channel.port2]
    })
    // A writer never closed does not keep the process alive.
    worker.unref()
    port.unref()
  } catch (e) {
    db.close()
    throw e instanceof StoreError ? e : error((e as Error).message)
  }

  let ops: Array<Op> = []
  let vectors: Array<ReadonlyArray<number> | Float32Array> = []
  let floats = 0
  let records = 0
  let sent = 0
  let inBatch = 0
  let failure: StoreError | undefined
  let closed = false

  /** The thread's failure, once told: thrown by every later call. */
  const check = () => {
    if (failure === undefined && Atomics.load(state, STATE.status) === STATUS.failed) {
      const reply = receiveMessageOnPort(port)?.message as { error?: string } | undefined
      failure = error(reply?.error ?? "the write thread failed")
    }
    if (failure !== undefined) throw failure
  }
  const post = (message: { ops: ReadonlyArray<Op>; vectors?: Float32Array }) => {
    worker.postMessage(message, message.vectors === undefined ? [] : [message.vectors.buffer as ArrayBuffer])
    sent++
  }
  /** Sends the operations held (their vectors in one transferred buffer). */
  const send = () => {
    if (ops.length === 0) return
    const packed = new Float32Array(floats)
    let at = 0
    for (const v of vectors) {
      packed.set(v, at)
      at += v.length
    }
    post({ ops, vectors: packed })
    ops = []
    vectors = []
    floats = 0
    records = 0
  }
  const flush = () => {
    send()
    // Bounded: wait while the thread is IN_FLIGHT messages behind.
    for (;;) {
      const processed = Atomics.load(state, STATE.processed)
      if (sent - processed <= IN_FLIGHT) break
      check()
      Atomics.wait(state, STATE.processed, processed, 1000)
    }
    check()
  }
  /** After a record's operation: the batch committed once it holds BATCH records. */
  const done = () => {
    if (++inBatch >= BATCH) {
      inBatch = 0
      try {
        hooks.beforeCommit?.()
      } catch (e) {
        ops.push(["r"])
        flush()
        throw e
      }
      ops.push(["c"])
    }
    if (++records >= CHUNK) flush()
  }
  const waitFor = (slot: number, until: (value: number) => boolean, limit = Infinity) => {
    const end = Date.now() + limit
    for (;;) {
      const value = Atomics.load(state, slot)
      if (until(value) || Date.now() > end) return value
      Atomics.wait(state, slot, value, 1000)
    }
  }

  return {
    claimed,
    pass,
    put: (recordKey, hash, rows) => {
      check()
      let next: ReadonlyArray<StoreRow>
      try {
        const current = q.current.get(recordKey)
        if (current !== undefined && current.hash === hash) {
          ops.push(["t", recordKey, 1])
          return done()
        }
        next = rows()
      } catch (e) {
        throw error(`record ${recordKey}: ${(e as Error).message}`)
      }
      ops.push([
        "p",
        recordKey,
        hash,
        next.map((row) => [row.vector.length, row.text, ...settings.metadata.map((m) => row.metadata[m] ?? "")])
      ])
      for (const row of next) {
        vectors.push(row.vector)
        floats += row.vector.length
      }
      done()
    },
    keep: (recordKey) => {
      check()
      ops.push(["t", recordKey, 0])
      done()
    },
    claim: (recordKey, line) => {
      try {
        const first = q.claim.get(recordKey, line)!.line
        return first === line ? undefined : first
      } catch (e) {
        throw error(`record ${recordKey}: ${(e as Error).message}`)
      }
    },
    commit: () => {
      check()
      ops.push(["f"])
      flush()
      const status = waitFor(STATE.status, (s) => s !== STATUS.running)
      check()
      const reply = receiveMessageOnPort(port)?.message as { counts?: StoreChanges } | undefined
      if (status !== STATUS.finished || reply?.counts === undefined) throw error("commit: the write thread stopped")
      inBatch = 0
      return { ...reply.counts }
    },
    close: () => {
      if (closed) return
      closed = true
      // The batches filled are committed, as the in-thread writer's were; the open one is rolled back.
      send()
      post({ ops: [["x"]] })
      // Bounded: a thread that cannot answer is terminated (its open batch is never committed).
      waitFor(STATE.closed, (c) => c === 1, 30_000)
      void worker.terminate()
      port.close()
      db.close()
    }
  }
}
