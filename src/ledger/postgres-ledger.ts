/**
 * The ledger's PostgreSQL adapter: one ledger shared by every machine that runs a job (`ledger:
 * postgres://…`), through `pg` (node-postgres) with a small pool.
 *
 * Same semantics as the SQLite adapter (the conformance suite runs on both): answers by content
 * key, visible to every job and worker; a write races another worker's safely (`INSERT … ON
 * CONFLICT`: one row per key, a newer answer replaces an older one, as a refresh needs), and the
 * rows of each batch go in key order, so two workers' batches never deadlock. Nothing is asked per
 * record: a window's answers come in one query (`unnest($1::text[])`), and the write-behind buffer
 * (async-write-buffer.ts) commits all that gathered during the previous round trip in one statement.
 *
 * A server that cannot be reached or refuses the connection is a LedgerError with `unreachable`
 * (exit 10) naming the host, never the password. The URL is held as `Redacted` and shown redacted.
 */
import { Effect, Layer, Option, Redacted } from "effect"
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from "pg"
import { decodeAnswer, plainAnswer } from "./answer-codec.ts"
import { makeAsyncWriteBuffer } from "./async-write-buffer.ts"
import {
  type GcOptions,
  type GcResult,
  Ledger,
  type LedgerError,
  type LedgerService,
  type RecordStatus,
  type StoredAnswer,
  type StoredRecordText
} from "./ledger.ts"
import { redactUrl } from "./ledger-url.ts"
import { encodeStats, type RecordRow, type RunRow, statusTable, toOutcome, toRun } from "./outcome-codec.ts"
import { makePendingAnswers, recordOp, type WriteOp } from "./pending-answers.ts"
import { postgresMigrations } from "./postgres-migrations.ts"
import { migrateOnce, openPostgresPool, postgresFailure } from "./postgres-pool.ts"

export interface PostgresLedgerOptions {
  readonly url: Redacted.Redacted<string>
  /** Most operations per commit (one statement). */
  readonly batchSize?: number
  /** The longest a write may wait for its commit to start while writes keep coming (ms; default 5). */
  readonly maxLagMs?: number
  /** Called after each commit with the answer keys it made durable. */
  readonly onCommit?: (answerKeys: ReadonlyArray<string>) => void
  /** Connections in the pool (default 4: a writer, and reads beside it). */
  readonly poolSize?: number
  /** How long to wait for a connection before the server counts as unreachable (ms; default 10,000). */
  readonly connectTimeoutMs?: number
}

export const makePostgresLedger = (options: PostgresLedgerOptions) =>
  Effect.gen(function* () {
    const url = Redacted.value(options.url)
    const shown = redactUrl(url)
    const failure = postgresFailure(url)
    const pool = yield* openPostgresPool({
      url,
      max: options.poolSize ?? 4,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      int8AsNumber: true
    })

    const query = <R extends QueryResultRow>(config: QueryConfig, on: PoolClient | Pool = pool) => on.query<R>(config)
    /** A read: a lost server dies with the LedgerError (the port's reads do not fail; main.ts maps it to exit 10). */
    const read = <A>(what: string, f: () => Promise<A>) =>
      Effect.orDie(Effect.tryPromise({ try: f, catch: failure(what) }))
    const written = <A>(what: string, f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: failure(what) })
    /** `f` in one transaction on one connection. */
    const transaction = async <A>(f: (client: PoolClient) => Promise<A>): Promise<A> => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        const result = await f(client)
        await client.query("COMMIT")
        return result
      } catch (e) {
        await client.query("ROLLBACK").catch(() => undefined)
        throw e
      } finally {
        client.release()
      }
    }

    // Migrations, once, by whichever machine gets the lock first.
    yield* Effect.tryPromise({
      try: () =>
        migrateOnce(pool, {
          lock: "svc-batch ledger schema",
          versionTable: "ledger_schema",
          label: "schema",
          migrations: postgresMigrations
        }),
      catch: failure("cannot open the ledger")
    })

    const storedOf = (row: { answer: string | null; answer_bytes: Uint8Array | null }): StoredAnswer =>
      row.answer ?? row.answer_bytes!

    // Answers buffered but not yet committed, so a lookup never misses one.
    const pending = makePendingAnswers()

    const commit = async (ops: ReadonlyArray<WriteOp>) => {
      const now = Date.now()
      // One row per key in a statement (ON CONFLICT cannot touch a row twice): the last write wins,
      // as it would one statement after another. Sorted, so that concurrent workers lock rows in
      // the same order.
      const answers = new Map<string, Extract<WriteOp, { _tag: "Answer" }>>()
      const records = new Map<string, Extract<WriteOp, { _tag: "Record" }>>()
      for (const op of ops) {
        if (op._tag === "Answer") answers.set(op.entry.key, op)
        else records.set(`${op.runId}:${op.ordinal}`, op)
      }
      const a = [...answers.values()].sort((x, y) =>
        x.entry.key < y.entry.key ? -1 : x.entry.key > y.entry.key ? 1 : 0
      )
      const r = [...records.values()].sort((x, y) => x.runId - y.runId || x.ordinal - y.ordinal)
      await query({
        name: "svc-batch-commit",
        text:
          "WITH a AS (INSERT INTO answers (content_key, endpoint, model, answer, answer_bytes, tokens, created_at) " +
          "SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bytea[], $6::int[], $7::bigint[]) " +
          "ON CONFLICT (content_key) DO UPDATE SET endpoint = excluded.endpoint, model = excluded.model, answer = excluded.answer, " +
          "answer_bytes = excluded.answer_bytes, tokens = excluded.tokens, created_at = excluded.created_at " +
          "WHERE answers.created_at <= excluded.created_at), " +
          "r AS (INSERT INTO records (run_id, ordinal, key, status, output, error) " +
          "SELECT * FROM unnest($8::bigint[], $9::int[], $10::text[], $11::text[], $12::text[], $13::text[]) " +
          "ON CONFLICT (run_id, ordinal) DO UPDATE SET key = excluded.key, status = excluded.status, output = excluded.output, error = excluded.error) " +
          "SELECT 1",
        values: [
          a.map((op) => op.entry.key),
          a.map((op) => op.entry.endpoint),
          a.map((op) => op.entry.model),
          a.map((op) => (typeof op.stored === "string" ? op.stored : null)),
          a.map((op) => (typeof op.stored === "string" ? null : Buffer.from(op.stored))),
          a.map((op) => op.entry.tokens),
          a.map((op) => pending.get(op.entry.key)?.at ?? now),
          r.map((op) => op.runId),
          r.map((op) => op.ordinal),
          r.map((op) => op.key),
          r.map((op) => op.status),
          r.map((op) => op.output),
          r.map((op) => op.error)
        ]
      })
      for (const op of a) pending.committed(op.entry.key, op.stored)
      options.onCommit?.(a.map((op) => op.entry.key))
    }
    const buffer = makeAsyncWriteBuffer<WriteOp>({
      commit,
      maxOps: options.batchSize ?? 2000,
      maxLagMs: options.maxLagMs ?? 5
    })
    const writeError = failure("write failed")
    /** Buffers `op`; waits only when the backlog is over its bound; fails when an earlier commit failed. */
    const write = (op: WriteOp): Effect.Effect<void, LedgerError> =>
      Effect.suspend(() => {
        let wait: Promise<void> | undefined
        try {
          wait = buffer.add(op)
        } catch (e) {
          return Effect.fail(writeError(e))
        }
        return wait === undefined ? Effect.void : Effect.promise(() => wait)
      })
    const flush = Effect.tryPromise({ try: () => buffer.flush(), catch: writeError })
    // What is buffered when the ledger's scope closes is committed (a failure there has no one to tell).
    yield* Effect.addFinalizer(() => Effect.ignore(flush))

    const answerStored = (key: string, since: number) =>
      Effect.suspend(() => {
        const queued = pending.get(key)
        if (queued !== undefined) return Effect.succeed(queued.at >= since ? queued.stored : undefined)
        return read("read failed", () =>
          query<{ answer: string | null; answer_bytes: Uint8Array | null }>({
            name: "svc-batch-answer",
            text: "SELECT answer, answer_bytes FROM answers WHERE content_key = $1 AND created_at >= $2",
            values: [key, since]
          })
        ).pipe(Effect.map((res) => (res.rows[0] === undefined ? undefined : storedOf(res.rows[0]))))
      })

    const recordTexts = (runId: number, fromOrdinal: number, limit: number) =>
      read("read failed", () =>
        query<StoredRecordText>({
          name: "svc-batch-records",
          text: "SELECT ordinal, status, key, output, error FROM records WHERE run_id = $1 AND ordinal >= $2 ORDER BY ordinal LIMIT $3",
          values: [runId, fromOrdinal, limit]
        })
      ).pipe(Effect.map((res): ReadonlyArray<StoredRecordText> => res.rows))

    const sizeOf = (on: PoolClient | Pool) =>
      query<{ bytes: number }>(
        {
          text: "SELECT (pg_total_relation_size('answers') + pg_total_relation_size('runs') + pg_total_relation_size('records'))::bigint AS bytes"
        },
        on
      ).then((res) => res.rows[0]!.bytes)

    const gc = (job: string, keepRuns: number, answersBefore: number, _options: GcOptions = {}) =>
      Effect.zipRight(
        flush,
        written("gc failed", async (): Promise<GcResult> => {
          const bytesBefore = await sizeOf(pool)
          const outcome = await transaction(async (client) => {
            const old = await query<{ id: number }>(
              { text: "SELECT id FROM runs WHERE job = $1 ORDER BY id DESC OFFSET $2", values: [job, keepRuns] },
              client
            )
            const deleted = await query<{ run_id: number; n: number }>(
              {
                text: "WITH d AS (DELETE FROM records WHERE run_id = ANY($1::bigint[]) RETURNING run_id) SELECT run_id, count(*)::int AS n FROM d GROUP BY run_id ORDER BY run_id DESC",
                values: [old.rows.map((r) => r.id)]
              },
              client
            )
            const records = deleted.rows.reduce((n, r) => n + r.n, 0)
            const runs = deleted.rows.map((r) => r.run_id)
            // No answer old enough to go: no need to list every kept record's keys (a scan of all records).
            const anyOld = await query(
              { text: "SELECT 1 FROM answers WHERE created_at < $1 LIMIT 1", values: [answersBefore] },
              client
            )
            if (anyOld.rows.length === 0) return { runs, records, answers: 0 }
            // Answers still used by a kept record (of any job in this ledger) stay, however old.
            await client.query(
              "CREATE TEMP TABLE kept_keys ON COMMIT DROP AS SELECT DISTINCT k.key FROM records AS r " +
                "CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(r.output::jsonb -> 'keys') = 'array' " +
                "THEN r.output::jsonb -> 'keys' ELSE '[]'::jsonb END) AS k(key) WHERE r.output IS NOT NULL"
            )
            await client.query("ANALYZE kept_keys")
            const gone = await query(
              {
                text: "DELETE FROM answers AS a WHERE a.created_at < $1 AND NOT EXISTS (SELECT 1 FROM kept_keys AS k WHERE k.key = a.content_key)",
                values: [answersBefore]
              },
              client
            )
            return { runs, records, answers: gone.rowCount ?? 0 }
          })
          // The space deleted rows leave is autovacuum's to reuse (as SQLite reuses free pages);
          // VACUUM FULL would lock the tables every worker shares, so it is never run here.
          return { ...outcome, bytesBefore, bytesAfter: await sizeOf(pool), compacted: false }
        })
      )

    const runRows = (what: string, config: QueryConfig) =>
      read(what, () => query<RunRow>(config)).pipe(Effect.map((res) => res.rows.map(toRun)))

    const service: LedgerService = {
      path: shown,
      gc,
      hasAnswer: (key) =>
        pending.has(key)
          ? Effect.succeed(true)
          : read("read failed", () =>
              query({
                name: "svc-batch-has-answer",
                text: "SELECT 1 FROM answers WHERE content_key = $1",
                values: [key]
              })
            ).pipe(Effect.map((res) => res.rows.length > 0)),
      answer: (key, schema, since = 0) =>
        Effect.map(answerStored(key, since), (stored) =>
          // An answer stored in another shape (an older version of the stage) is not reused.
          stored === undefined ? Option.none() : decodeAnswer(stored, schema)
        ),
      answersFor: (keys, since = 0) =>
        Effect.suspend(() => {
          const { found, ask, askedAt } = pending.split(keys, since)
          if (ask.length === 0) return Effect.succeed(found)
          // The whole window in one round trip; each row comes back with its key's place.
          return read("read failed", () =>
            query<{ i: number; answer: string | null; answer_bytes: Uint8Array | null }>({
              name: "svc-batch-answers",
              text:
                "SELECT k.i::int AS i, a.answer, a.answer_bytes FROM unnest($1::text[]) WITH ORDINALITY AS k(key, i) " +
                "JOIN answers AS a ON a.content_key = k.key AND a.created_at >= $2",
              values: [ask, since]
            })
          ).pipe(
            Effect.map((res) => {
              for (const row of res.rows) found[askedAt[row.i - 1]!] = storedOf(row)
              return found
            })
          )
        }),
      inBytes: (keys, since = 0) =>
        Effect.suspend(() => {
          const { found, ask, askedAt } = pending.splitInBytes(keys, since)
          if (ask.length === 0) return Effect.succeed(found)
          // `IS NOT NULL` does not fetch a vector kept out of line (TOAST).
          return read("read failed", () =>
            query<{ i: number; bytes: boolean }>({
              name: "svc-batch-answers-in-bytes",
              text:
                "SELECT k.i::int AS i, a.answer_bytes IS NOT NULL AS bytes FROM unnest($1::text[]) WITH ORDINALITY AS k(key, i) " +
                "LEFT JOIN answers AS a ON a.content_key = k.key AND a.created_at >= $2",
              values: [ask, since]
            })
          ).pipe(
            Effect.map((res) => {
              for (const row of res.rows) found[askedAt[row.i - 1]!] = row.bytes
              return found
            })
          )
        }),
      lastAnswerAt: read("read failed", () =>
        query<{ at: string | null }>({
          name: "svc-batch-last-answer-at",
          text: "SELECT max(created_at)::text AS at FROM answers"
        })
      ).pipe(Effect.map((res) => Number(res.rows[0]?.at ?? 0))),
      answerJson: (key) =>
        Effect.map(answerStored(key, 0), (stored) =>
          stored === undefined ? Option.none() : Option.some(plainAnswer(stored))
        ),
      putAnswer: (entry, schema, value) => Effect.suspend(() => write(pending.put(entry, schema, value))),
      record: (runId, ordinal) =>
        read("read failed", () =>
          query<RecordRow>({
            name: "svc-batch-record",
            text: "SELECT status, key, output, error FROM records WHERE run_id = $1 AND ordinal = $2",
            values: [runId, ordinal]
          })
        ).pipe(
          Effect.map((res) => {
            const row = res.rows[0]
            return row === undefined ? Option.none() : Option.some({ key: row.key, outcome: toOutcome(row) })
          })
        ),
      records: (runId, fromOrdinal, limit) =>
        Effect.map(recordTexts(runId, fromOrdinal, limit), (rows) =>
          rows.map((row) => ({ ordinal: row.ordinal, key: row.key, outcome: toOutcome(row) }))
        ),
      recordTexts,
      recordStatuses: (runId) =>
        read("read failed", async () => {
          // In pages along the primary key, as arrays: a million records never sit in memory as row objects.
          const table = statusTable()
          const PAGE = 100_000
          for (let from = 0; ;) {
            const res = await pool.query<[number, RecordStatus]>({
              text: "SELECT ordinal, status FROM records WHERE run_id = $1 AND ordinal >= $2 ORDER BY ordinal LIMIT $3",
              values: [runId, from, PAGE],
              rowMode: "array"
            })
            for (const [ordinal, status] of res.rows) table.add(ordinal, status)
            if (res.rows.length < PAGE) break
            from = res.rows[res.rows.length - 1]![0] + 1
          }
          return table.done()
        }),
      putRecord: (runId, ordinal, key, outcome) => Effect.suspend(() => write(recordOp(runId, ordinal, key, outcome))),
      putRecords: (runId, records) =>
        Effect.suspend(() => {
          let wait: Promise<void> | undefined
          try {
            for (const r of records) wait = buffer.add(recordOp(runId, r.ordinal, r.key, r.outcome)) ?? wait
          } catch (e) {
            return Effect.fail(writeError(e))
          }
          return wait === undefined ? Effect.void : Effect.promise(() => wait)
        }),
      commitLag: () => buffer.lag(),
      flush,
      lastRun: (job) =>
        Effect.map(
          runRows("read failed", {
            name: "svc-batch-last-run",
            text: "SELECT * FROM runs WHERE job = $1 ORDER BY id DESC LIMIT 1",
            values: [job]
          }),
          (runs) => Option.fromNullable(runs[0])
        ),
      run: (id) =>
        Effect.map(runRows("read failed", { text: "SELECT * FROM runs WHERE id = $1", values: [id] }), (runs) =>
          Option.fromNullable(runs[0])
        ),
      runs: (job, limit) =>
        runRows("read failed", {
          text: "SELECT * FROM runs WHERE job = $1 ORDER BY id DESC LIMIT $2",
          values: [job, limit]
        }),
      countByColumn: (runId, column) =>
        read("read failed", () =>
          query<{ value: string | null; n: number }>({
            text:
              "SELECT coalesce(output::jsonb #>> $1::text[], output::jsonb #>> $2::text[]) AS value, count(*)::int AS n " +
              "FROM records WHERE run_id = $3 AND status = 'done' GROUP BY 1",
            values: [["rows", "0", column], ["0", column], runId]
          })
        ).pipe(Effect.map((res) => res.rows)),
      setRunService: (id, service) =>
        written("write failed", () =>
          query({ text: "UPDATE runs SET service = $1 WHERE id = $2", values: [service, id] })
        ).pipe(Effect.asVoid),
      startRun: (job, fingerprint) =>
        written("write failed", () =>
          query<{ id: number }>({
            text: "INSERT INTO runs (job, fingerprint, status, started_at) VALUES ($1, $2, 'running', $3) RETURNING id",
            values: [job, fingerprint, Date.now()]
          })
        ).pipe(Effect.map((res) => res.rows[0]!.id)),
      setRun: (id, status, stats) =>
        written("write failed", () => {
          const now = Date.now()
          return query({
            text: "UPDATE runs SET status = $1, finished_at = $2, counters = $3, updated_at = $4 WHERE id = $5",
            values: [status, status === "running" ? null : now, encodeStats(stats), now, id]
          })
        }).pipe(Effect.asVoid),
      duplicateKeys: (runId) =>
        read("read failed", () =>
          query<{ key: string; first: number; n: number }>({
            text: "SELECT key, min(ordinal) AS first, count(*)::int AS n FROM records WHERE run_id = $1 GROUP BY key HAVING count(*) > 1",
            values: [runId]
          })
        ).pipe(Effect.map((res) => new Map(res.rows.map((r) => [r.key, { first: r.first, count: r.n }])))),
      counts: (runId) =>
        read("read failed", () =>
          query<{ status: RecordStatus; n: number }>({
            text: "SELECT status, count(*)::int AS n FROM records WHERE run_id = $1 GROUP BY status",
            values: [runId]
          })
        ).pipe(
          Effect.map((res) => {
            const out: Record<RecordStatus, number> = { done: 0, failed: 0 }
            for (const row of res.rows) out[row.status] = row.n
            return out
          })
        )
    }
    return service
  })

/** The PostgreSQL adapter of the ledger port, as a layer. */
export const PostgresLedger = {
  layer: (options: PostgresLedgerOptions) => Layer.scoped(Ledger, makePostgresLedger(options))
}
