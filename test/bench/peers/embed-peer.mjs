/**
 * The peer for `npm run bench:embed`: what a user writes for a backfill without svc-batch — plain
 * `fetch`, a p-limit-style limiter (a dozen lines, below), and sqlite-vec through better-sqlite3,
 * reading the same JSONL corpus into a `vec0` table (cosine) in transactions of 500. No ledger, no
 * resume, no Parquet, no rerun that sends nothing: it does less than a job, which is the point.
 * Plain ESM run by `node` itself, so its start-up is as cheap as such a script's can be.
 *   node test/bench/peers/embed-peer.mjs <baseUrl> <key> <input.jsonl> <store.sqlite> <concurrency>
 */
import { createReadStream } from "node:fs"
import { createInterface } from "node:readline"
import Database from "better-sqlite3"
import * as sqliteVec from "sqlite-vec"

const [url, key, input, storePath, concurrency] = process.argv.slice(2)

/** p-limit's contract: at most `n` of the functions given run at once. */
const limit = (n) => {
  let active = 0
  const queue = []
  const next = () => {
    if (active >= n || queue.length === 0) return
    active++
    const { fn, resolve, reject } = queue.shift()
    fn()
      .then(resolve, reject)
      .finally(() => {
        active--
        next()
      })
  }
  return (fn) =>
    new Promise((resolve, reject) => {
      queue.push({ fn, resolve, reject })
      next()
    })
}

const db = new Database(storePath)
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
sqliteVec.load(db)
db.exec(
  "CREATE VIRTUAL TABLE IF NOT EXISTS docs USING vec0(key TEXT PRIMARY KEY, embedding float[1536] distance_metric=cosine, +text TEXT)"
)
const insert = db.prepare("INSERT OR REPLACE INTO docs (key, embedding, text) VALUES (?, ?, ?)")
let batch = []
const flush = db.transaction((rows) => {
  for (const r of rows) insert.run(r.key, r.vector, r.text)
})

const embed = async (record) => {
  const res = await fetch(`${url}/v1/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: "svc3-embedding", input: record.body, task_type: "RETRIEVAL_DOCUMENT" })
  })
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`)
  const answer = await res.json()
  batch.push({
    key: String(record.id),
    vector: Buffer.from(Float32Array.from(answer.data[0].embedding).buffer),
    text: record.body
  })
  if (batch.length >= 500) {
    flush(batch)
    batch = []
  }
}

const run = limit(Number(concurrency))
const pending = new Set()
let failed = 0
for await (const line of createInterface({ input: createReadStream(input), crlfDelay: Infinity })) {
  if (line === "") continue
  const p = run(() => embed(JSON.parse(line))).catch((e) => {
    failed++
    console.error(String(e))
  })
  pending.add(p)
  p.finally(() => pending.delete(p))
  // Back-pressure like a careful script: do not queue the whole corpus.
  if (pending.size >= 256) await Promise.race(pending)
}
await Promise.all(pending)
flush(batch)
db.close()
if (failed > 0) process.exitCode = 1
