/**
 * The ledger's SQLite adapter (the default): one file in WAL mode through better-sqlite3.
 *
 * Reads are point lookups. Writes gather in a write-behind buffer (write-buffer.ts) committed in
 * batches at most a few ms late, so no transaction ever spans an HTTP call and the hot path never
 * waits for the disk. better-sqlite3 is synchronous: a commit takes no await, and a warm rerun's
 * lookups cost microseconds (this is the hot path; see docs/performance.md).
 */
import Database from "better-sqlite3"
import { Effect, Layer, Option } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { decodeAnswer, plainAnswer } from "./answer-codec.ts"
import { describeFailure, isDiskFailure } from "./disk-failure.ts"
import {
  type GcOptions,
  type GcResult,
  Ledger,
  LedgerError,
  type LedgerService,
  type RecordStatus,
  type StoredAnswer,
  type StoredRecordText
} from "./ledger.ts"
import { migrations } from "./migrations.ts"
import {
  columnPaths,
  encodeStats,
  type RecordRow,
  type RunRow,
  statusTable,
  toOutcome,
  toRun
} from "./outcome-codec.ts"
import { makePendingAnswers, recordOp, type WriteOp } from "./pending-answers.ts"
import { makeWriteBuffer } from "./write-buffer.ts"

/** The share of a ledger's file that, free, makes retention compact it (VACUUM). */
const COMPACT_FREE_SHARE = 0.25

/** An answer as stored: JSON text, or bytes for a Schema marked StoredAsBlob (vectors). */
type Stored = StoredAnswer

export interface SqliteLedgerOptions {
  readonly path: string
  /** Most operations per transaction. */
  readonly batchSize?: number
  /** The longest a write may wait for its commit while writes keep coming (ms; default 5). */
  readonly maxLagMs?: number
  /**
   * Bytes of the file read through a memory map (0: none, SQLite's reads). For ledgers of vector
   * answers: each 6 KiB vector spans three pages (a leaf and two overflow pages), three `pread`s a
   * read, and a backfill's warm rerun reads each twice (docs/performance.md).
   */
  readonly mapBytes?: number
  /** Called after each commit with the answer keys it made durable. */
  readonly onCommit?: (answerKeys: ReadonlyArray<string>) => void
}

/**
 * The memory map of a ledger that holds vectors. Mapped pages are the file's page cache, counted in
 * the process's RSS once read: capped at 256 MiB so a large ledger does not show as hundreds of MB
 * more RSS (a 20k-vector ledger, ~170 MB, is mapped whole; beyond the cap SQLite reads as before).
 */
export const VECTOR_LEDGER_MAP_BYTES = 256 * 1024 * 1024

/** The ledger connection's page cache (and sorter budget), KiB. */
export const LEDGER_CACHE_KIB = 4000

/**
 * Brings the schema up to date under the write lock, reading the version again once it holds it:
 * two processes opening an older ledger at once (a run and `status`) migrate it once, not twice.
 */
const migrate = (db: Database.Database) =>
  db
    .transaction(() => {
      const version = db.pragma("user_version", { simple: true }) as number
      if (version >= migrations.length) return
      for (let v = version; v < migrations.length; v++) db.exec(migrations[v]!)
      db.pragma(`user_version = ${migrations.length}`)
    })
    .immediate()

const open = (path: string, mapBytes: number) => {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("busy_timeout = 5000")
  // 4 MiB of page cache, not better-sqlite3's 16 MiB: SQLite's sorter takes the same budget, and the
  // run's closing GROUP BYs over 1,000,000 records pushed peak RSS past 200 MB. The OS caches the
  // file anyway; the smaller cache measured faster on those scans (docs/performance.md).
  db.pragma(`cache_size = ${-LEDGER_CACHE_KIB}`)
  if (mapBytes > 0) db.pragma(`mmap_size = ${mapBytes}`)
  if ((db.pragma("user_version", { simple: true }) as number) < migrations.length) migrate(db)
  return db
}

export const makeSqliteLedger = (options: SqliteLedgerOptions) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => open(options.path, options.mapBytes ?? 0),
        catch: (e) => new LedgerError({ path: options.path, detail: (e as Error).message, cause: e })
      }),
      (db) => Effect.sync(() => db.close())
    )
    const q = {
      answer: db.prepare<[string, number], { answer: Stored }>(
        "SELECT answer FROM answers WHERE content_key = ? AND created_at >= ?"
      ),
      hasAnswer: db.prepare<[string], { one: number }>("SELECT 1 AS one FROM answers WHERE content_key = ?"),
      lastAnswerAt: db.prepare<[], number | null>("SELECT max(created_at) FROM answers").pluck(),
      // Many keys in one statement: the keys travel as one JSON array, and each array element gives
      // one row in array order (null: no answer), so no key comes back to be matched. Measured on a
      // 50,000-answer ledger, windows of 512: 1.5 µs a key, against 3.1 for `content_key IN (…)`
      // returning the keys with the answers.
      answers: db
        .prepare<[string, number], Stored | null>(
          "SELECT a.answer FROM json_each(?) AS j LEFT JOIN answers AS a ON a.content_key = j.value AND a.created_at >= ? ORDER BY j.key"
        )
        .pluck(),
      statuses: db.prepare<[number], { ordinal: number; status: RecordStatus }>(
        "SELECT ordinal, status FROM records WHERE run_id = ?"
      ),
      inBytes: db
        .prepare<[string, number], number>(
          "SELECT s.content_key IS NOT NULL FROM json_each(?) AS j " +
            "LEFT JOIN answers_in_bytes AS s ON s.content_key = j.value AND s.created_at >= ? ORDER BY j.key"
        )
        .pluck(),
      putAnswer: db.prepare(
        "INSERT INTO answers (content_key, endpoint, model, answer, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT (content_key) DO UPDATE SET answer = excluded.answer, tokens = excluded.tokens, created_at = excluded.created_at"
      ),
      record: db.prepare<[number, number], RecordRow>(
        "SELECT status, key, output, error FROM records WHERE run_id = ? AND ordinal = ?"
      ),
      records: db.prepare<[number, number, number], StoredRecordText>(
        "SELECT ordinal, status, key, output, error FROM records WHERE run_id = ? AND ordinal >= ? ORDER BY ordinal LIMIT ?"
      ),
      putRecord: db.prepare(
        "INSERT INTO records (run_id, ordinal, key, status, output, error) VALUES (?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT (run_id, ordinal) DO UPDATE SET key = excluded.key, status = excluded.status, output = excluded.output, error = excluded.error"
      ),
      lastRun: db.prepare<[string], RunRow>("SELECT * FROM runs WHERE job = ? ORDER BY id DESC LIMIT 1"),
      runs: db.prepare<[string, number], RunRow>("SELECT * FROM runs WHERE job = ? ORDER BY id DESC LIMIT ?"),
      // SQLite's JSON functions read the column inside the stored outcome (the v2 shape, or the older rows-only one).
      countByColumn: db.prepare<[string, string, number], { value: string | null; n: number }>(
        "SELECT coalesce(json_extract(output, ?), json_extract(output, ?)) AS value, count(*) AS n FROM records WHERE run_id = ? AND status = 'done' GROUP BY value"
      ),
      newRun: db.prepare("INSERT INTO runs (job, fingerprint, status, started_at) VALUES (?, ?, 'running', ?)"),
      setRun: db.prepare("UPDATE runs SET status = ?, finished_at = ?, counters = ?, updated_at = ? WHERE id = ?"),
      setRunService: db.prepare("UPDATE runs SET service = ? WHERE id = ?"),
      runById: db.prepare<[number], RunRow>("SELECT * FROM runs WHERE id = ?"),
      duplicateKeys: db.prepare<[number], { key: string; first: number; n: number }>(
        "SELECT key, min(ordinal) AS first, count(*) AS n FROM records WHERE run_id = ? GROUP BY key HAVING count(*) > 1"
      ),
      countByStatus: db.prepare<[number], { status: RecordStatus; n: number }>(
        "SELECT status, count(*) AS n FROM records WHERE run_id = ? GROUP BY status"
      )
    }

    // Answers buffered but not yet committed, so a lookup never misses one.
    const pending = makePendingAnswers()
    const commit = db.transaction((ops: ReadonlyArray<WriteOp>) => {
      const now = Date.now()
      for (const op of ops) {
        if (op._tag === "Answer")
          q.putAnswer.run(
            op.entry.key,
            op.entry.endpoint,
            op.entry.model,
            op.stored,
            op.entry.tokens,
            pending.get(op.entry.key)?.at ?? now
          )
        else q.putRecord.run(op.runId, op.ordinal, op.key, op.status, op.output, op.error)
      }
    })
    const buffer = makeWriteBuffer<WriteOp>({
      maxOps: options.batchSize ?? 2000,
      maxLagMs: options.maxLagMs ?? 5,
      commit: (ops) => {
        commit(ops)
        for (const op of ops) if (op._tag === "Answer") pending.committed(op.entry.key, op.stored)
        options.onCommit?.(ops.flatMap((op) => (op._tag === "Answer" ? [op.entry.key] : [])))
      }
    })
    const writeError = (e: unknown) =>
      new LedgerError({
        path: options.path,
        detail: `write failed: ${describeFailure(e)}`,
        io: isDiskFailure(e),
        cause: e
      })
    /** A single statement's write, failing as the buffered ones do (not as a defect). */
    const written = <A>(f: () => A) => Effect.try({ try: f, catch: writeError })
    const write = (op: WriteOp) => Effect.try({ try: () => buffer.add(op), catch: writeError })
    const flush = Effect.try({ try: () => buffer.flush(), catch: writeError })
    // What is buffered when the ledger's scope closes is committed (a failure there has no one to tell).
    yield* Effect.addFinalizer(() => Effect.ignore(flush))

    const answerText = (key: string, since: number): Stored | undefined => {
      const queued = pending.get(key)
      if (queued !== undefined) return queued.at >= since ? queued.stored : undefined
      return q.answer.get(key, since)?.answer
    }

    const fileBytes = () => {
      const pages = db.pragma("page_count", { simple: true }) as number
      const size = db.pragma("page_size", { simple: true }) as number
      return pages * size
    }
    const freePages = () => db.pragma("freelist_count", { simple: true }) as number
    const gc = (job: string, keepRuns: number, answersBefore: number, gcOptions: GcOptions = {}) =>
      Effect.zipRight(
        flush,
        Effect.try({
          try: (): GcResult => {
            const bytesBefore = fileBytes()
            const old = db
              .prepare<[string, number], { id: number }>(
                "SELECT id FROM runs WHERE job = ? ORDER BY id DESC LIMIT -1 OFFSET ?"
              )
              .all(job, keepRuns)
            const trimmed: Array<number> = []
            // Pages the next run's records are expected to take back (only with nextRunReuses).
            let reused = 0
            const outcome = db.transaction(() => {
              let records = 0
              const freeBefore = freePages()
              const del = db.prepare("DELETE FROM records WHERE run_id = ?")
              for (const r of old) {
                const n = del.run(r.id).changes
                if (n > 0) trimmed.push(r.id)
                records += n
              }
              if (gcOptions.nextRunReuses === true && records > 0) {
                const newest =
                  db
                    .prepare<[string], { n: number }>(
                      "SELECT count(*) AS n FROM records WHERE run_id = (SELECT max(id) FROM runs WHERE job = ?)"
                    )
                    .get(job)?.n ?? 0
                reused = Math.round((freePages() - freeBefore) * Math.min(1, newest / records))
              }
              // No answer old enough to go: no need to list every kept record's keys (a scan of all records).
              if (
                db
                  .prepare<[number], { one: number }>("SELECT 1 AS one FROM answers WHERE created_at < ? LIMIT 1")
                  .get(answersBefore) === undefined
              ) {
                return { records, answers: 0 }
              }
              // Answers still used by a kept record (of any job in this ledger) stay, however old.
              db.exec(
                "CREATE TEMP TABLE IF NOT EXISTS kept_keys (k TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM kept_keys;"
              )
              db.exec(
                "INSERT OR IGNORE INTO kept_keys SELECT j.value FROM records, json_each(records.output, '$.keys') AS j WHERE records.output IS NOT NULL AND json_valid(records.output) AND json_type(records.output, '$.keys') = 'array'"
              )
              const answers = db
                .prepare("DELETE FROM answers WHERE created_at < ? AND content_key NOT IN (SELECT k FROM kept_keys)")
                .run(answersBefore).changes
              db.exec("DROP TABLE kept_keys")
              return { records, answers }
            })()
            const pages = db.pragma("page_count", { simple: true }) as number
            const compacted = pages > 0 && (freePages() - reused) / pages >= COMPACT_FREE_SHARE
            if (compacted) db.exec("VACUUM")
            return { runs: trimmed, ...outcome, bytesBefore, bytesAfter: fileBytes(), compacted }
          },
          catch: (e) =>
            new LedgerError({
              path: options.path,
              detail: `gc failed: ${describeFailure(e)}`,
              io: isDiskFailure(e),
              cause: e
            })
        })
      )

    const service: LedgerService = {
      gc,
      hasAnswer: (key) => Effect.sync(() => pending.has(key) || q.hasAnswer.get(key) !== undefined),
      path: options.path,
      answer: (key, schema, since = 0) =>
        Effect.sync(() => {
          const text = answerText(key, since)
          if (text === undefined) return Option.none()
          // An answer stored in another shape (an older version of the stage) is not reused.
          return decodeAnswer(text, schema)
        }),
      answersFor: (keys, since = 0) =>
        Effect.sync(() => {
          const { found, ask, askedAt } = pending.split(keys, since)
          if (ask.length > 0) {
            // `all` rather than `iterate`: a window's answers are few and small, and stepping costs more.
            const rows = q.answers.all(JSON.stringify(ask), since)
            for (let j = 0; j < rows.length; j++) if (rows[j] !== null) found[askedAt[j]!] = rows[j]!
          }
          return found
        }),
      inBytes: (keys, since = 0) =>
        Effect.sync(() => {
          const { found, ask, askedAt } = pending.splitInBytes(keys, since)
          if (ask.length > 0) {
            const rows = q.inBytes.all(JSON.stringify(ask), since)
            for (let j = 0; j < rows.length; j++) found[askedAt[j]!] = rows[j] === 1
          }
          return found
        }),
      recordStatuses: (runId) =>
        Effect.sync(() => {
          const table = statusTable()
          for (const row of q.statuses.iterate(runId)) table.add(row.ordinal, row.status)
          return table.done()
        }),
      lastAnswerAt: Effect.sync(() => q.lastAnswerAt.get() ?? 0),
      answerJson: (key) =>
        Effect.sync(() => {
          const text = answerText(key, 0)
          return text === undefined ? Option.none() : Option.some(plainAnswer(text))
        }),
      putAnswer: (entry, schema, value) => Effect.suspend(() => write(pending.put(entry, schema, value))),
      record: (runId, ordinal) =>
        Effect.sync(() => {
          const row = q.record.get(runId, ordinal)
          return row === undefined ? Option.none() : Option.some({ key: row.key, outcome: toOutcome(row) })
        }),
      records: (runId, fromOrdinal, limit) =>
        Effect.sync(() =>
          q.records
            .all(runId, fromOrdinal, limit)
            .map((row) => ({ ordinal: row.ordinal, key: row.key, outcome: toOutcome(row) }))
        ),
      recordTexts: (runId, fromOrdinal, limit) => Effect.sync(() => q.records.all(runId, fromOrdinal, limit)),
      putRecord: (runId, ordinal, key, outcome) => Effect.suspend(() => write(recordOp(runId, ordinal, key, outcome))),
      putRecords: (runId, records) =>
        Effect.try({
          try: () => {
            for (const r of records) buffer.add(recordOp(runId, r.ordinal, r.key, r.outcome))
          },
          catch: writeError
        }),
      commitLag: () => buffer.lag(),
      flush,
      lastRun: (job) => Effect.sync(() => Option.map(Option.fromNullable(q.lastRun.get(job)), toRun)),
      run: (id) => Effect.sync(() => Option.map(Option.fromNullable(q.runById.get(id)), toRun)),
      runs: (job, limit) => Effect.sync(() => q.runs.all(job, limit).map(toRun)),
      countByColumn: (runId, column) =>
        Effect.sync(() => {
          const [current, legacy] = columnPaths(column)
          return q.countByColumn.all(current, legacy, runId)
        }),
      setRunService: (id, service) => written(() => void q.setRunService.run(service, id)),
      startRun: (job, fingerprint) => written(() => Number(q.newRun.run(job, fingerprint, Date.now()).lastInsertRowid)),
      setRun: (id, status, stats) =>
        written(() => {
          const now = Date.now()
          q.setRun.run(status, status === "running" ? null : now, encodeStats(stats), now, id)
        }),
      duplicateKeys: (runId) =>
        Effect.sync(() => new Map(q.duplicateKeys.all(runId).map((r) => [r.key, { first: r.first, count: r.n }]))),
      counts: (runId) =>
        Effect.sync(() => {
          const out: Record<RecordStatus, number> = { done: 0, failed: 0 }
          for (const row of q.countByStatus.all(runId)) out[row.status] = row.n
          return out
        })
    }
    return service
  })

/** The SQLite adapter of the ledger port, as layers. */
export const SqliteLedger = {
  layer: (options: SqliteLedgerOptions) => Layer.scoped(Ledger, makeSqliteLedger(options)),
  /** An in-memory ledger for tests and plans (nothing on disk). */
  layerMemory: Layer.scoped(Ledger, makeSqliteLedger({ path: ":memory:" }))
}
