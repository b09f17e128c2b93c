/**
 * The code of the store's write thread (store-write-thread.ts), as source run with
 * `new Worker(source, { eval: true })`: plain CommonJS, self-contained, so that it runs the same
 * from the sources (tsx, vitest), the library build and the one-file CLI bundle. It opens its own
 * connection to the store and applies the operations the main thread sends, in order, one
 * transaction per batch; the statements are the in-thread writer's (storeStatements).
 *
 * Shared state (Int32Array over workerData.state): see STATE in store-write-thread.ts.
 * Operations: ["p", key, hash, [[floats, text, ...metadata], ...]] puts a record's rows (their
 * vectors in order in the message's `vectors`), ["t", key] marks it seen (unchanged or kept),
 * ["c"] commits the batch, ["r"] rolls it back, ["f"] commits, cleans up and replies with the
 * counts, ["x"] rolls back what is open and closes. The first failure rolls the open batch back,
 * is told once (status 2 and a message on the reply port) and every later operation but "x" is ignored.
 */
export const STORE_WRITE_WORKER = String.raw`
"use strict"
const { parentPort, workerData: w } = require("node:worker_threads")
const state = new Int32Array(w.state)
const PROCESSED = 0, STATUS = 1, CLOSED = 2
const RUNNING = 0, FINISHED = 1, FAILED = 2
const port = w.port
const signal = (slot, value) => {
  Atomics.store(state, slot, value)
  Atomics.notify(state, slot)
}
let db, q, inTx = false, failed = false, invalidate = w.invalidate
const counts = { written: 0, unchanged: 0, deleted: 0 }
const fail = (detail) => {
  failed = true
  try {
    if (db !== undefined && db.inTransaction) db.exec("ROLLBACK")
  } catch {}
  inTx = false
  port.postMessage({ error: detail })
  signal(STATUS, FAILED)
}
try {
  const Database = require(w.betterSqlite3)
  db = new Database(w.path, { fileMustExist: true })
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("busy_timeout = 5000")
  db.loadExtension(w.vec)
  q = {}
  for (const [name, sql] of Object.entries(w.sql)) if (name !== "claim") q[name] = db.prepare(sql)
} catch (e) {
  fail(e.message)
}
const rowKey = (recordKey, index, count) => (count === 1 && index === 0 ? recordKey : recordKey + "#" + index)
const begin = () => {
  if (!inTx) {
    db.exec("BEGIN")
    inTx = true
  }
}
// The first change marks an HNSW index left by an earlier "index: hnsw" pass stale.
const changing = () => {
  if (invalidate === undefined) return
  const sql = invalidate
  invalidate = undefined
  db.prepare(sql).run()
}
const deleteRows = (recordKey, count) => {
  for (let i = 0; i < count; i++) {
    changing()
    q.deleteRow.run(rowKey(recordKey, i, count))
  }
}
const apply = (op, vectors, at) => {
  switch (op[0]) {
    case "p": {
      const [, key, hash, rows] = op
      begin()
      const current = q.current.get(key)
      if (current !== undefined && current.hash === hash) {
        q.touch.run(w.pass, key)
        counts.unchanged++
        return at + rows.reduce((n, r) => n + r[0], 0)
      }
      if (current !== undefined) deleteRows(key, current.rows)
      rows.forEach((r, i) => {
        const blob = Buffer.from(vectors.buffer, vectors.byteOffset + at * 4, r[0] * 4)
        at += r[0]
        changing()
        q.insert.run(rowKey(key, i, rows.length), blob, ...r.slice(2), key, r[1])
      })
      q.setRecord.run(key, hash, rows.length, w.pass)
      counts.written++
      return at
    }
    case "t":
      begin()
      q.touch.run(w.pass, op[1])
      if (op[2]) counts.unchanged++
      return at
    case "c":
      if (inTx) db.exec("COMMIT")
      inTx = false
      return at
    case "r":
      if (inTx) db.exec("ROLLBACK")
      inTx = false
      return at
    case "f": {
      if (inTx) db.exec("COMMIT")
      inTx = false
      if (w.cleanup) {
        db.transaction(() => {
          for (const stale of q.stale.all(w.pass)) {
            deleteRows(stale.record_key, stale.rows)
            q.deleteRecord.run(stale.record_key)
            counts.deleted++
          }
        })()
      }
      port.postMessage({ counts })
      signal(STATUS, FINISHED)
      return at
    }
  }
  return at
}
const close = () => {
  try {
    if (db !== undefined) {
      if (db.inTransaction) db.exec("ROLLBACK")
      db.close()
    }
  } catch {}
  signal(CLOSED, 1)
  parentPort.close()
}
parentPort.on("message", (m) => {
  let at = 0
  for (const op of m.ops) {
    if (op[0] === "x") return close()
    if (failed) continue
    try {
      at = apply(op, m.vectors, at)
    } catch (e) {
      fail((op[0] === "p" || op[0] === "t" ? "record " + op[1] : "commit") + ": " + e.message)
    }
  }
  Atomics.add(state, PROCESSED, 1)
  Atomics.notify(state, PROCESSED)
})
`
