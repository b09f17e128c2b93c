/**
 * The units of every distributed run, in a table beside the ledger's: where each unit stands
 * (queued, active, done, refused, aborted, failed), which worker has it (host:pid) and when it
 * last reported. It outlives the coordinator: a rerun of the same command finds its done units
 * done. pg-boss carries the units to the workers; this table is what `status --cluster` reads.
 */
import { Effect, Redacted } from "effect"
import type { Pool } from "pg"
import { LedgerError } from "../ledger/ledger.ts"
import { redactUrl, urlHost } from "../ledger/ledger-url.ts"
import { isUnreachable } from "../ledger/postgres-pool.ts"
import type { InputUnit } from "../io/source.ts"
import type { UnitCounters } from "../engine/run-stats.ts"

export type UnitState = "queued" | "active" | "done" | "refused" | "aborted" | "failed"

export interface UnitRow {
  readonly index: number
  readonly state: UnitState
  readonly bossId: string | null
  readonly worker: string | null
  readonly attempts: number
  readonly message: string | null
  /** Seconds since the worker last reported (active units). */
  readonly silentFor: number | null
  /** Data rows in the unit. */
  readonly rows: number
  /** Seconds since the row last changed. */
  readonly age: number
  /** Records the worker has finished in this attempt (as of its last heartbeat). */
  readonly progress: number
  /** Seconds since the worker took it (active units). */
  readonly busyFor: number | null
  /** What it finished and asked (done units, from this version on). */
  readonly counters: UnitCounters | null
}

/** A database failure as the ledger says it: exit 10 when the server cannot be reached, its host named, never its password. */
export const clusterFailure = (url: string, what: string) => (e: unknown) =>
  new LedgerError({
    path: redactUrl(url),
    detail: isUnreachable(e)
      ? `cannot reach PostgreSQL at ${urlHost(url)}: ${e instanceof Error ? e.message : String(e)}`
      : `${what}: ${e instanceof Error ? e.message : String(e)}`,
    ...(isUnreachable(e) ? { unreachable: true } : {}),
    cause: e
  })

const SCHEMA = `
CREATE TABLE IF NOT EXISTS svc_batch_units (
  run_id bigint NOT NULL,
  idx integer NOT NULL,
  job text NOT NULL,
  unit jsonb NOT NULL,
  state text NOT NULL DEFAULT 'queued',
  boss_id text,
  worker text,
  attempts integer NOT NULL DEFAULT 0,
  message text,
  heartbeat_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, idx)
);
ALTER TABLE svc_batch_units ADD COLUMN IF NOT EXISTS progress integer NOT NULL DEFAULT 0;
ALTER TABLE svc_batch_units ADD COLUMN IF NOT EXISTS taken_at timestamptz;
ALTER TABLE svc_batch_units ADD COLUMN IF NOT EXISTS counters jsonb`

export const makeUnitBoard = (url: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    const plain = Redacted.value(url)
    const pg = (yield* Effect.promise(() => import("pg"))).default
    const pool: Pool = yield* Effect.acquireRelease(
      Effect.sync(() => new pg.Pool({ connectionString: plain, max: 2, connectionTimeoutMillis: 10_000 })),
      (p) => Effect.promise(() => p.end().catch(() => undefined))
    )
    // An idle connection the server dropped must not crash the process.
    pool.on("error", () => undefined)
    const query = <R = Record<string, unknown>>(what: string, sql: string, params: ReadonlyArray<unknown> = []) =>
      Effect.tryPromise({
        try: () => pool.query(sql, [...params]).then((r) => r.rows as Array<R>),
        catch: clusterFailure(plain, what)
      })
    // Created once, under a lock: several machines may start at the same moment.
    yield* Effect.tryPromise({
      try: async () => {
        const client = await pool.connect()
        try {
          await client.query("BEGIN")
          await client.query("SELECT pg_advisory_xact_lock(727274001)")
          await client.query(SCHEMA)
          await client.query("COMMIT")
        } catch (e) {
          await client.query("ROLLBACK").catch(() => undefined)
          throw e
        } finally {
          client.release()
        }
      },
      catch: clusterFailure(plain, "cannot create the units table")
    })
    const toRow = (r: Record<string, unknown>): UnitRow => ({
      index: Number(r.idx),
      state: r.state as UnitState,
      bossId: (r.boss_id as string | null) ?? null,
      worker: (r.worker as string | null) ?? null,
      attempts: Number(r.attempts),
      message: (r.message as string | null) ?? null,
      silentFor: r.silent_for === null || r.silent_for === undefined ? null : Number(r.silent_for),
      age: Number(r.age),
      rows: Number(r.rows),
      progress: Number(r.progress ?? 0),
      busyFor: r.busy_for === null || r.busy_for === undefined ? null : Number(r.busy_for),
      counters: (r.counters as UnitCounters | null | undefined) ?? null
    })
    return {
      /** The run's units, in order. */
      units: (runId: number) =>
        Effect.map(
          query(
            "cannot read the units",
            `SELECT idx, state, boss_id, (unit->>'rows')::int AS rows, worker, attempts, message,
                    EXTRACT(EPOCH FROM (now() - heartbeat_at)) AS silent_for,
                    EXTRACT(EPOCH FROM (now() - updated_at)) AS age, progress,
                    EXTRACT(EPOCH FROM (now() - taken_at)) AS busy_for, counters
               FROM svc_batch_units WHERE run_id = $1 ORDER BY idx`,
            [runId]
          ),
          (rows) => rows.map(toRow)
        ),
      /** A run's units as cut, all queued (none yet sent). */
      addUnits: (runId: number, job: string, units: ReadonlyArray<InputUnit>) =>
        query(
          "cannot record the units",
          `INSERT INTO svc_batch_units (run_id, idx, job, unit)
             SELECT $1, i - 1, $2, u FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(u, i)
           ON CONFLICT DO NOTHING`,
          [runId, job, JSON.stringify(units)]
        ),
      /** The unit as cut. */
      unitOf: (runId: number, index: number) =>
        Effect.map(
          query("cannot read a unit", `SELECT unit FROM svc_batch_units WHERE run_id = $1 AND idx = $2`, [
            runId,
            index
          ]),
          (rows) => rows[0]?.unit as InputUnit
        ),
      /** Sent to the queue as pg-boss job `bossId`, waiting for a worker. */
      queued: (runId: number, index: number, bossId: string, message: string | null = null, givenBack = false) =>
        query(
          "cannot record a unit",
          `UPDATE svc_batch_units SET state = 'queued', boss_id = $3, worker = NULL, message = $4, updated_at = now(),
                  attempts = CASE WHEN $5 THEN GREATEST(attempts - 1, 0) ELSE attempts END
             WHERE run_id = $1 AND idx = $2`,
          [runId, index, bossId, message, givenBack]
        ),
      /** A worker took it: one more attempt. */
      taken: (runId: number, index: number, worker: string) =>
        query<{ attempts: number }>(
          "cannot record a unit",
          `UPDATE svc_batch_units SET state = 'active', worker = $3, attempts = attempts + 1,
                  heartbeat_at = now(), updated_at = now(), taken_at = now(), progress = 0
             WHERE run_id = $1 AND idx = $2 RETURNING attempts`,
          [runId, index, worker]
        ).pipe(Effect.map((rows) => Number(rows[0]?.attempts ?? 1))),
      /**
       * The worker still works on it, and has finished `progress` of its records. False when the
       * unit is no longer this worker's (given to another after it was silent too long).
       */
      heartbeat: (runId: number, index: number, worker: string, progress: number) =>
        Effect.map(
          query(
            "cannot record a heartbeat",
            `UPDATE svc_batch_units SET heartbeat_at = now(), progress = $4
               WHERE run_id = $1 AND idx = $2 AND worker = $3 AND state = 'active' RETURNING idx`,
            [runId, index, worker, progress]
          ),
          (rows) => rows.length > 0
        ),
      /** Where a unit ends up (done, refused, aborted, failed, or queued again), with why; a done one with its counters. */
      settle: (runId: number, index: number, state: UnitState, message: string | null, counters?: UnitCounters) =>
        query(
          "cannot record a unit",
          `UPDATE svc_batch_units SET state = $3, message = $4, updated_at = now(),
                  worker = CASE WHEN $3 = 'queued' THEN NULL ELSE worker END,
                  counters = COALESCE($5::jsonb, counters)
             WHERE run_id = $1 AND idx = $2`,
          [runId, index, state, message, counters === undefined ? null : JSON.stringify(counters)]
        )
    }
  })

export type UnitBoard = Effect.Effect.Success<ReturnType<typeof makeUnitBoard>>
