/**
 * The ledger: every answer by content key (so no text is paid for twice, within a run or across
 * runs), and per run which records are done or failed. SQLite in WAL mode through better-sqlite3.
 *
 * Reads are synchronous point lookups. Writes go through ONE writer fiber that commits queued
 * operations in batches, so no transaction ever spans an HTTP call and the hot path never waits
 * for the disk. `flush` returns once everything queued before it is committed.
 */
import Database from "better-sqlite3"
import { Context, Data, Deferred, Effect, Layer, Queue } from "effect"
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { migrations } from "./migrations.ts"

export class LedgerError extends Data.TaggedError("LedgerError")<{ readonly path: string; readonly detail: string }> {
  override get message() {
    return `ledger ${this.path}: ${this.detail}`
  }
}

export type RecordStatus = "done" | "failed"
export type RunStatus = "running" | "interrupted" | "finished" | "aborted"

export interface RunRow {
  readonly id: number
  readonly job: string
  readonly fingerprint: string
  readonly status: RunStatus
  readonly started_at: number
  readonly finished_at: number | null
  readonly counters: string
}

export interface RecordRow {
  readonly status: RecordStatus
  readonly key: string
  readonly output: string | null
  readonly error: string | null
}

export interface FailureInfo {
  readonly stage: string
  readonly status: string
  readonly message: string
  readonly attempts: number
}

export type WriteOp =
  | { readonly _tag: "Answer"; readonly key: string; readonly endpoint: string; readonly model: string; readonly answer: string; readonly tokens: number }
  | { readonly _tag: "Record"; readonly runId: number; readonly ordinal: number; readonly key: string; readonly status: RecordStatus; readonly output: string | null; readonly error: string | null }
  | { readonly _tag: "Flush"; readonly done: Deferred.Deferred<void> }

export interface LedgerOptions {
  readonly path: string
  /** Most operations per transaction. */
  readonly batchSize?: number
  /** How long the writer lets a batch gather before committing (ms). */
  readonly lingerMs?: number
  /** Called after each commit with the answer keys it made durable. */
  readonly onCommit?: (answerKeys: ReadonlyArray<string>) => void
}

const open = (path: string) => {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("busy_timeout = 5000")
  const version = db.pragma("user_version", { simple: true }) as number
  for (let v = version; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]!)
      db.pragma(`user_version = ${v + 1}`)
    })()
  }
  return db
}

export const makeLedger = (options: LedgerOptions) =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => open(options.path), catch: (e) => new LedgerError({ path: options.path, detail: (e as Error).message }) }),
      (db) => Effect.sync(() => db.close())
    )
    const q = {
      answer: db.prepare<[string, number], { answer: string }>("SELECT answer FROM answers WHERE content_key = ? AND created_at >= ?"),
      putAnswer: db.prepare(
        "INSERT INTO answers (content_key, endpoint, model, answer, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT (content_key) DO UPDATE SET answer = excluded.answer, tokens = excluded.tokens, created_at = excluded.created_at"
      ),
      record: db.prepare<[number, number], RecordRow>("SELECT status, key, output, error FROM records WHERE run_id = ? AND ordinal = ?"),
      putRecord: db.prepare(
        "INSERT INTO records (run_id, ordinal, key, status, output, error) VALUES (?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT (run_id, ordinal) DO UPDATE SET key = excluded.key, status = excluded.status, output = excluded.output, error = excluded.error"
      ),
      lastRun: db.prepare<[string], RunRow>("SELECT * FROM runs WHERE job = ? ORDER BY id DESC LIMIT 1"),
      newRun: db.prepare("INSERT INTO runs (job, fingerprint, status, started_at) VALUES (?, ?, 'running', ?)"),
      setRun: db.prepare("UPDATE runs SET status = ?, finished_at = ?, counters = ? WHERE id = ?"),
      runById: db.prepare<[number], RunRow>("SELECT * FROM runs WHERE id = ?"),
      countByStatus: db.prepare<[number], { status: RecordStatus; n: number }>(
        "SELECT status, count(*) AS n FROM records WHERE run_id = ? GROUP BY status"
      )
    }

    // Answers queued but not yet committed, so a lookup never misses one in the writer's queue.
    const pending = new Map<string, { answer: string; at: number }>()
    const queue = yield* Queue.bounded<WriteOp>(options.batchSize ?? 2000)
    const batchSize = options.batchSize ?? 2000
    const commit = db.transaction((ops: ReadonlyArray<WriteOp>) => {
      const now = Date.now()
      for (const op of ops) {
        if (op._tag === "Answer") q.putAnswer.run(op.key, op.endpoint, op.model, op.answer, op.tokens, pending.get(op.key)?.at ?? now)
        else if (op._tag === "Record") q.putRecord.run(op.runId, op.ordinal, op.key, op.status, op.output, op.error)
      }
    })
    const linger = options.lingerMs ?? 20
    const writer = Effect.gen(function* () {
      const first = yield* Queue.takeBetween(queue, 1, batchSize)
      const list = [...first]
      // Let a batch gather (unless a flush is waiting): one transaction per ~20 ms, not per write.
      if (list.length < batchSize && linger > 0 && !list.some((op) => op._tag === "Flush")) {
        yield* Effect.sleep(linger)
        list.push(...(yield* Queue.takeUpTo(queue, batchSize - list.length)))
      }
      yield* Effect.try({
        try: () => commit(list),
        catch: (e) => new LedgerError({ path: options.path, detail: `write failed: ${(e as Error).message}` })
      })
      for (const op of list) if (op._tag === "Answer" && pending.get(op.key)?.answer === op.answer) pending.delete(op.key)
      options.onCommit?.(list.flatMap((op) => (op._tag === "Answer" ? [op.key] : [])))
      for (const op of list) if (op._tag === "Flush") yield* Deferred.succeed(op.done, undefined)
    }).pipe(Effect.forever)
    // The writer dies with the ledger's scope; `flush` before closing to keep what was queued.
    yield* Effect.forkScoped(writer)

    const flush = Effect.gen(function* () {
      const done = yield* Deferred.make<void>()
      yield* Queue.offer(queue, { _tag: "Flush", done })
      yield* Deferred.await(done)
    })

    return {
      path: options.path,
      /** A stored (or queued) answer written at or after `since` (ms), or undefined. */
      answer: (key: string, since = 0): string | undefined => {
        const queued = pending.get(key)
        if (queued !== undefined) return queued.at >= since ? queued.answer : undefined
        return q.answer.get(key, since)?.answer
      },
      record: (runId: number, ordinal: number): RecordRow | undefined => q.record.get(runId, ordinal),
      write: (op: Exclude<WriteOp, { _tag: "Flush" }>) =>
        Effect.suspend(() => {
          if (op._tag === "Answer") pending.set(op.key, { answer: op.answer, at: Date.now() })
          return Queue.offer(queue, op)
        }),
      flush,
      lastRun: (job: string): RunRow | undefined => q.lastRun.get(job),
      run: (id: number): RunRow | undefined => q.runById.get(id),
      startRun: (job: string, fingerprint: string): number => Number(q.newRun.run(job, fingerprint, Date.now()).lastInsertRowid),
      /** Sets a run's status and counters (after a flush, so they agree with the records). */
      setRun: (id: number, status: RunStatus, counters: unknown) =>
        void q.setRun.run(status, status === "running" ? null : Date.now(), JSON.stringify(counters), id),
      counts: (runId: number): Record<RecordStatus, number> => {
        const out: Record<RecordStatus, number> = { done: 0, failed: 0 }
        for (const row of q.countByStatus.all(runId)) out[row.status] = row.n
        return out
      }
    }
  })

export type LedgerService = Effect.Effect.Success<ReturnType<typeof makeLedger>>

export class Ledger extends Context.Tag("svc-batch/Ledger")<Ledger, LedgerService>() {
  static readonly layer = (options: LedgerOptions) => Layer.scoped(Ledger, makeLedger(options))
}
