// The ledger's write cost (not a test): 50,000 answers with random keys and their records, in commits of N
// records, the ledger's schema and pragmas. CPU µs per record, and the WAL and file sizes.
//   npm run bench:ledger -- [pageSize=4096] [recordsPerCommit=5] [records=50000]   (PRE=200000: a ledger holding that many answers already)
const Database = require("better-sqlite3"),
  fs = require("fs"),
  { randomBytes } = require("crypto")
const [pageSize, perCommit, n] = [
  Number(process.argv[2] ?? 4096),
  Number(process.argv[3] ?? 5),
  Number(process.argv[4] ?? 50000)
]
const path = require("path").join(require("os").tmpdir(), `ledger-writes-${process.pid}.sqlite`)
for (const s of ["", "-wal", "-shm"]) fs.rmSync(path + s, { force: true })
const db = new Database(path)
db.pragma(`page_size = ${pageSize}`)
db.pragma("journal_mode = WAL")
db.pragma("synchronous = NORMAL")
db.pragma("cache_size = -4000")
db.exec(`CREATE TABLE answers (content_key TEXT PRIMARY KEY, endpoint TEXT NOT NULL, model TEXT NOT NULL, answer TEXT NOT NULL, tokens INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE records (run_id INTEGER NOT NULL, ordinal INTEGER NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL, output TEXT, error TEXT, PRIMARY KEY (run_id, ordinal)) WITHOUT ROWID;`)
// pre-fill like an existing ledger
const pre = Number(process.env.PRE ?? 0)
const putA = db.prepare(
  "INSERT INTO answers (content_key, endpoint, model, answer, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (content_key) DO UPDATE SET answer = excluded.answer"
)
const putR = db.prepare(
  "INSERT INTO records (run_id, ordinal, key, status, output, error) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, ordinal) DO UPDATE SET status = excluded.status"
)
db.transaction(() => {
  for (let i = 0; i < pre; i++)
    putA.run(randomBytes(32).toString("base64url"), "chat", "svc3-guard", '"safe"', 13, Date.now())
})()
const keys = Array.from({ length: n }, () => randomBytes(32).toString("base64url"))
const out = JSON.stringify({
  keys: [keys[0]],
  rows: [{ moderation_verdict: "safe", moderation_categories: "", moderation_raw: "" }]
})
const commit = db.transaction((from, to) => {
  for (let i = from; i < to; i++) {
    putA.run(keys[i], "chat", "svc3-guard", '"safe"', 13, Date.now())
    putR.run(1, i, `r${i}`, "done", out, null)
  }
})
const t0 = performance.now()
const c0 = process.cpuUsage()
for (let i = 0; i < n; i += perCommit) commit(i, Math.min(n, i + perCommit))
const c = process.cpuUsage(c0)
console.log(
  `page ${pageSize} per-commit ${perCommit} pre ${pre}: µs/record wall ${(((performance.now() - t0) * 1000) / n).toFixed(1)} cpu ${((c.user + c.system) / n).toFixed(1)}  wal ${(fs.statSync(path + "-wal").size / 1e6).toFixed(1)} MB db ${(fs.statSync(path).size / 1e6).toFixed(1)} MB`
)
for (const s of ["", "-wal", "-shm"]) fs.rmSync(path + s, { force: true })
