/**
 * The ledger: every answer by content key (so no text is paid for twice, within a run or across
 * runs), and per run which records are done or failed. SQLite in WAL mode through better-sqlite3.
 *
 * Reads are point lookups. Writes gather in a write-behind buffer (write-buffer.ts) committed in
 * batches at most a few ms late, so no transaction ever spans an HTTP call and the hot path never
 * waits for the disk. `flush` commits everything written before it. Every JSON column is written and
 * read through a Schema (answers through the request's own answer Schema; see stored.ts).
 */
import Database from "better-sqlite3"
import { Context, Data, Effect, Either, Layer, Option, Schema, SchemaAST } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { describeFailure, isDiskFailure } from "./disk-failure.ts"
import { ExitCode } from "../exit-code.ts"
import { migrations } from "./migrations.ts"
import { type CommitLag, makeWriteBuffer } from "./write-buffer.ts"
import {
  float32Values,
  FailureInfoJson,
  isStoredAsBlob,
  LegacyRecordOutputJson,
  RecordOutputJson,
  RunStatsSnapshot,
  type FailureInfo,
  type RecordOutput
} from "./stored.ts"

export class LedgerError extends Data.TaggedError("LedgerError")<{
  readonly path: string
  readonly detail: string
  /**
   * The disk failed a write (full, quota, I/O error): the ledger is sound but could not take what
   * the run wrote, maybe after requests were sent (exit 9). Absent: it cannot be opened or is not
   * a ledger (exit 2).
   */
  readonly io?: boolean
  /** What SQLite or the system threw, kept for logs and debugging. */
  readonly cause?: unknown
}> {
  /** Exit 9 when the disk failed a write (requests may have been sent; it resumes), else 2. */
  get exitCode() {
    return this.io === true ? ExitCode.outputNotWritten : ExitCode.invalid
  }
  override get message() {
    return `ledger ${this.path}: ${this.detail}`
  }
}

export type RecordStatus = "done" | "failed"
export type RunStatus = "running" | "interrupted" | "finished" | "aborted"

/**
 * The Schema of a stored answer; its encoded side is JSON.
 * any: Schema is invariant in its encoded type, and what it encodes to is the schema's own business.
 */
export type StoredSchema<A> = Schema.Schema<A, any>

export interface Run {
  readonly id: number
  readonly job: string
  readonly fingerprint: string
  readonly status: RunStatus
  readonly startedAt: number
  readonly finishedAt: number | null
  readonly stats: RunStatsSnapshot
  /** Where its answers came from: "emulator" or the service's base URL; null for older runs. */
  readonly service: string | null
  /** When its statistics were last saved (a running run saves them every few seconds). */
  readonly updatedAt: number | null
}

export type RecordOutcome =
  { readonly _tag: "Done"; readonly output: RecordOutput } | { readonly _tag: "Failed"; readonly error: FailureInfo }

export interface StoredRecord {
  readonly key: string
  readonly outcome: RecordOutcome
}

/** A stored answer as read, before its Schema decodes it. */
export type StoredAnswer = string | Uint8Array

/** A run's recorded outcomes by ordinal: one byte per ordinal, not an object per record. */
export interface RecordStatuses {
  readonly get: (ordinal: number) => RecordStatus | undefined
  readonly size: number
}

/** Decodes an answer read by `answersFor` with its request's Schema; none if stored in another shape. */
export const decodeAnswer = <A>(stored: StoredAnswer, schema: StoredSchema<A>): Option.Option<A> =>
  Either.getRight(codecFor(schema).decode(stored)) as Option.Option<A>

export interface AnswerEntry {
  readonly key: string
  readonly endpoint: string
  readonly model: string
  readonly tokens: number
}

export interface LedgerService {
  readonly path: string
  /** A stored (or queued) answer written at or after `since` (ms), decoded; none if absent or of another shape. */
  readonly answer: <A>(key: string, schema: StoredSchema<A>, since?: number) => Effect.Effect<Option.Option<A>>
  /**
   * Stored (or queued) answers for many keys at once (one query, not one per key), written at or
   * after `since`, in the keys' order; undefined where a key has no answer. Decode each with its
   * request's Schema (`decodeAnswer`).
   */
  readonly answersFor: (
    keys: ReadonlyArray<string>,
    since?: number
  ) => Effect.Effect<ReadonlyArray<StoredAnswer | undefined>>
  /** Whether an answer is stored (or queued) under `key`, without reading it. */
  readonly hasAnswer: (key: string) => Effect.Effect<boolean>
  /** A stored answer as plain JSON, a vector as a Float32Array (to resolve a reference to it). */
  readonly answerJson: (key: string) => Effect.Effect<Option.Option<unknown>>
  /** Buffers an answer (committed a few ms later); fails when an earlier commit failed (e.g. disk full). */
  readonly putAnswer: <A>(entry: AnswerEntry, schema: StoredSchema<A>, value: A) => Effect.Effect<void, LedgerError>
  readonly record: (runId: number, ordinal: number) => Effect.Effect<Option.Option<StoredRecord>>
  /** Every committed record of a run by ordinal, done or failed, in one scan (a resumed run's done set). */
  readonly recordStatuses: (runId: number) => Effect.Effect<RecordStatuses>
  /** A page of a run's records in ordinal order, from `fromOrdinal` on (a scan, not a lookup per record). */
  readonly records: (
    runId: number,
    fromOrdinal: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<StoredRecord & { readonly ordinal: number }>>
  readonly putRecord: (
    runId: number,
    ordinal: number,
    key: string,
    outcome: RecordOutcome
  ) => Effect.Effect<void, LedgerError>
  /** Many records' outcomes at once (a window of a warm rerun): one effect, not one per record. */
  readonly putRecords: (
    runId: number,
    records: ReadonlyArray<{ readonly ordinal: number; readonly key: string; readonly outcome: RecordOutcome }>
  ) => Effect.Effect<void, LedgerError>
  /** Commits everything written before it. */
  readonly flush: Effect.Effect<void, LedgerError>
  /** How long writes waited for their commit so far. */
  readonly commitLag: () => CommitLag
  readonly lastRun: (job: string) => Effect.Effect<Option.Option<Run>>
  /** The job's runs, newest first. */
  readonly runs: (job: string, limit: number) => Effect.Effect<ReadonlyArray<Run>>
  /** Done records of a run by the value of one output column of their first row (e.g. the verdict). */
  readonly countByColumn: (
    runId: number,
    column: string
  ) => Effect.Effect<ReadonlyArray<{ readonly value: string | null; readonly n: number }>>
  readonly run: (id: number) => Effect.Effect<Option.Option<Run>>
  readonly startRun: (job: string, fingerprint: string) => Effect.Effect<number, LedgerError>
  /** Records where the run's answers come from ("emulator" or a base URL). */
  readonly setRunService: (id: number, service: string) => Effect.Effect<void, LedgerError>
  /** Sets a run's status and statistics (after a flush, so they agree with the records). */
  readonly setRun: (id: number, status: RunStatus, stats: RunStatsSnapshot) => Effect.Effect<void, LedgerError>
  readonly counts: (runId: number) => Effect.Effect<Readonly<Record<RecordStatus, number>>>
  /** Record keys that more than one record of the run has, with the first such record's ordinal (one sorted scan). */
  readonly duplicateKeys: (
    runId: number
  ) => Effect.Effect<ReadonlyMap<string, { readonly first: number; readonly count: number }>>
  /**
   * Retention: deletes the per-record outcomes of the job's runs older than its newest `keepRuns`
   * (their run rows and statistics stay), then answers that no kept record refers to and that are
   * older than `answersBefore` (ms since the epoch); compacts the file when a quarter or more of it
   * is free (with `nextRunReuses`, free beyond what the next run's records will take back). Flushes
   * first; never run it while the job runs elsewhere.
   */
  readonly gc: (
    job: string,
    keepRuns: number,
    answersBefore: number,
    options?: GcOptions
  ) => Effect.Effect<GcResult, LedgerError>
}

export interface GcOptions {
  /**
   * Retention after a finished run: the job runs again, and SQLite reuses free pages before it
   * grows the file, so the pages the deleted runs' records leave are taken back by the next run's
   * records (in proportion: the newest run's records against those deleted). Compacting them away
   * would rewrite the whole file every night only for it to grow back the next (measured: 50,000
   * records a night freed 28 % of the file, and VACUUM took ~0.3 s of a 3 s warm run).
   */
  readonly nextRunReuses?: boolean
}

/** The share of a ledger's file that, free, makes retention compact it (VACUUM). */
const COMPACT_FREE_SHARE = 0.25

export interface GcResult {
  /** Runs whose records were deleted. */
  readonly runs: ReadonlyArray<number>
  readonly records: number
  readonly answers: number
  readonly bytesBefore: number
  readonly bytesAfter: number
  readonly compacted: boolean
}

type WriteOp =
  | { readonly _tag: "Answer"; readonly entry: AnswerEntry; readonly json: Stored }
  | {
      readonly _tag: "Record"
      readonly runId: number
      readonly ordinal: number
      readonly key: string
      readonly status: RecordStatus
      readonly output: string | null
      readonly error: string | null
    }

export interface LedgerOptions {
  readonly path: string
  /** Most operations per transaction. */
  readonly batchSize?: number
  /** The longest a write may wait for its commit while writes keep coming (ms; default 5). */
  readonly maxLagMs?: number
  /** Called after each commit with the answer keys it made durable. */
  readonly onCommit?: (answerKeys: ReadonlyArray<string>) => void
}

interface RunRow {
  readonly id: number
  readonly job: string
  readonly fingerprint: string
  readonly status: RunStatus
  readonly started_at: number
  readonly finished_at: number | null
  readonly counters: string
  readonly service: string | null
  readonly updated_at: number | null
}

interface RecordRow {
  readonly status: RecordStatus
  readonly key: string
  readonly output: string | null
  readonly error: string | null
}

/** The ledger connection's page cache (and sorter budget), KiB. */
export const LEDGER_CACHE_KIB = 4000

const open = (path: string) => {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("busy_timeout = 5000")
  // 4 MiB of page cache, not better-sqlite3's 16 MiB: SQLite's sorter takes the same budget, and the
  // run's closing GROUP BYs over 1,000,000 records pushed peak RSS past 200 MB. The OS caches the
  // file anyway; the smaller cache measured faster on those scans (docs/performance.md).
  db.pragma(`cache_size = ${-LEDGER_CACHE_KIB}`)
  const version = db.pragma("user_version", { simple: true }) as number
  for (let v = version; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!)
      db.pragma(`user_version = ${v + 1}`)
    })()
  }
  return db
}

/** An answer as stored: JSON text, or bytes for a Schema marked StoredAsBlob (vectors). */
type Stored = string | Uint8Array

/** One compiled codec per answer Schema (requests of a stage share theirs). */
const codecs = new WeakMap<
  object,
  { decode: (stored: Stored) => Either.Either<unknown, unknown>; encode: (value: unknown) => Stored }
>()
const codecFor = <A>(schema: StoredSchema<A>) => {
  let codec = codecs.get(schema)
  if (codec === undefined) {
    const wire = isStoredAsBlob(schema) ? schema : Schema.parseJson(schema)
    const decode = Schema.decodeUnknownEither(wire)
    codec = {
      decode: SchemaAST.isStringKeyword(schema.ast) ? decodeStoredString : decode,
      encode: Schema.encodeSync(wire) as (value: unknown) => Stored
    }
    codecs.set(schema, codec)
  }
  return codec
}

/**
 * `Schema.String`'s decode, by hand: JSON text holding a string. Most stages' answers are text,
 * and a warm run decodes one per record (the Schema's parser took ~1 µs each).
 */
const decodeStoredString = (stored: Stored): Either.Either<unknown, unknown> => {
  if (typeof stored !== "string") return Either.left("not JSON text")
  try {
    const value: unknown = JSON.parse(stored)
    return typeof value === "string" ? Either.right(value) : Either.left("not a string")
  } catch (e) {
    return Either.left(e)
  }
}

/** A stored answer as plain data: JSON parsed; a BLOB is a Float32 vector (the one BLOB answer), as a Float32Array. */
const plain = (stored: Stored): unknown => (typeof stored === "string" ? JSON.parse(stored) : float32Values(stored))

const decodeStats = Schema.decodeUnknownSync(Schema.parseJson(RunStatsSnapshot))
const encodeStats = Schema.encodeSync(Schema.parseJson(RunStatsSnapshot))
const decodeCurrentOutput = Schema.decodeUnknownEither(RecordOutputJson)
const decodeLegacyOutput = Schema.decodeUnknownSync(LegacyRecordOutputJson)
/** The current shape, checked by hand: this runs for every record of every output pass. */
const isCurrentOutput = (u: unknown): u is RecordOutput => {
  if (u === null || typeof u !== "object" || Array.isArray(u)) return false
  const { keys, rows } = u as { keys?: unknown; rows?: unknown }
  if (!Array.isArray(keys) || !Array.isArray(rows)) return false
  for (const k of keys) if (typeof k !== "string") return false
  for (const r of rows) if (r === null || typeof r !== "object" || Array.isArray(r)) return false
  return true
}
const decodeOutput = (json: string): RecordOutput => {
  try {
    const parsed: unknown = JSON.parse(json)
    if (isCurrentOutput(parsed)) return parsed
  } catch {
    // not JSON: the Schema below says why
  }
  return Either.getOrElse(decodeCurrentOutput(json), () => ({
    keys: [],
    rows: decodeLegacyOutput(json) as RecordOutput["rows"]
  }))
}
/**
 * The engine builds outcomes itself (RecordOutput's encoded side is its JSON: strings and plain
 * row objects), so they are written with JSON.stringify, not re-checked by the Schema per record.
 */
const encodeOutput = (output: RecordOutput): string => JSON.stringify(output)
const decodeError = Schema.decodeUnknownSync(FailureInfoJson)
const encodeError = Schema.encodeSync(FailureInfoJson)

const recordOp = (runId: number, ordinal: number, key: string, outcome: RecordOutcome): WriteOp =>
  outcome._tag === "Done"
    ? { _tag: "Record", runId, ordinal, key, status: "done", output: encodeOutput(outcome.output), error: null }
    : { _tag: "Record", runId, ordinal, key, status: "failed", output: null, error: encodeError(outcome.error) }

const toOutcome = (row: RecordRow): RecordOutcome =>
  row.status === "done"
    ? { _tag: "Done", output: decodeOutput(row.output ?? "[]") }
    : { _tag: "Failed", error: decodeError(row.error ?? "{}") }

const toRun = (row: RunRow): Run => ({
  id: row.id,
  job: row.job,
  fingerprint: row.fingerprint,
  status: row.status,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  stats: decodeStats(row.counters),
  service: row.service,
  updatedAt: row.updated_at
})

export const makeLedger = (options: LedgerOptions) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => open(options.path),
        catch: (e) => new LedgerError({ path: options.path, detail: (e as Error).message, cause: e })
      }),
      (db) => Effect.sync(() => db.close())
    )
    const q = {
      answer: db.prepare<[string, number], { answer: Stored }>(
        "SELECT answer FROM answers WHERE content_key = ? AND created_at >= ?"
      ),
      hasAnswer: db.prepare<[string], { one: number }>("SELECT 1 AS one FROM answers WHERE content_key = ?"),
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
      putAnswer: db.prepare(
        "INSERT INTO answers (content_key, endpoint, model, answer, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT (content_key) DO UPDATE SET answer = excluded.answer, tokens = excluded.tokens, created_at = excluded.created_at"
      ),
      record: db.prepare<[number, number], RecordRow>(
        "SELECT status, key, output, error FROM records WHERE run_id = ? AND ordinal = ?"
      ),
      records: db.prepare<[number, number, number], RecordRow & { ordinal: number }>(
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
    const pending = new Map<string, { json: Stored; at: number }>()
    const commit = db.transaction((ops: ReadonlyArray<WriteOp>) => {
      const now = Date.now()
      for (const op of ops) {
        if (op._tag === "Answer")
          q.putAnswer.run(
            op.entry.key,
            op.entry.endpoint,
            op.entry.model,
            op.json,
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
        for (const op of ops)
          if (op._tag === "Answer" && pending.get(op.entry.key)?.json === op.json) pending.delete(op.entry.key)
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
      if (queued !== undefined) return queued.at >= since ? queued.json : undefined
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
          return Either.getRight(codecFor(schema).decode(text)) as Option.Option<never>
        }),
      answersFor: (keys, since = 0) =>
        Effect.sync(() => {
          const found = new Array<Stored | undefined>(keys.length)
          const ask: Array<string> = []
          const askedAt: Array<number> = []
          for (let i = 0; i < keys.length; i++) {
            const queued = pending.get(keys[i]!)
            if (queued === undefined) {
              ask.push(keys[i]!)
              askedAt.push(i)
            } else if (queued.at >= since) found[i] = queued.json
          }
          if (ask.length > 0) {
            // `all` rather than `iterate`: a window's answers are few and small, and stepping costs more.
            const rows = q.answers.all(JSON.stringify(ask), since)
            for (let j = 0; j < rows.length; j++) if (rows[j] !== null) found[askedAt[j]!] = rows[j]!
          }
          return found
        }),
      recordStatuses: (runId) =>
        Effect.sync(() => {
          // 0: none, 1: done, 2: failed; grown as ordinals are met (they are dense from 0 or 1).
          let bytes = new Uint8Array(1024)
          let size = 0
          for (const row of q.statuses.iterate(runId)) {
            if (row.ordinal >= bytes.length) {
              const grown = new Uint8Array(Math.max(bytes.length * 2, row.ordinal + 1))
              grown.set(bytes)
              bytes = grown
            }
            bytes[row.ordinal] = row.status === "done" ? 1 : 2
            size++
          }
          const table = bytes
          return {
            size,
            get: (ordinal: number) =>
              ordinal < table.length
                ? table[ordinal] === 1
                  ? "done"
                  : table[ordinal] === 2
                    ? "failed"
                    : undefined
                : undefined
          }
        }),
      answerJson: (key) =>
        Effect.sync(() => {
          const text = answerText(key, 0)
          return text === undefined ? Option.none() : Option.some(plain(text))
        }),
      putAnswer: (entry, schema, value) =>
        Effect.suspend(() => {
          const json = codecFor(schema).encode(value)
          pending.set(entry.key, { json, at: Date.now() })
          return write({ _tag: "Answer", entry, json })
        }),
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
          const path = `."${column.replaceAll('"', '""')}"`
          return q.countByColumn.all(`$.rows[0]${path}`, `$[0]${path}`, runId)
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

export class Ledger extends Context.Tag("svc-batch/Ledger")<Ledger, LedgerService>() {
  static readonly layer = (options: LedgerOptions) => Layer.scoped(Ledger, makeLedger(options))
  /** An in-memory ledger for tests (nothing on disk). */
  static readonly layerMemory = Layer.scoped(Ledger, makeLedger({ path: ":memory:" }))
}
