/**
 * The shared rate's PostgreSQL adapter (the port: engine/flow/shared-bucket.ts): one bucket per
 * (origin, model) in the ledger's database, shared by every worker and every job on it, so
 * `limits.rpm` is the cluster's rate and a 429 met by one worker slows all of them.
 *
 * Why leases of a GCRA bucket and not rate-limiter-flexible's PostgreSQL store: its limiters count
 * points in fixed windows, one query per request, and say "no, retry in N ms" rather than "start at
 * t": a window's points go out in a burst at its start and two windows' meet at their boundary
 * (twice the rate for an instant, which a service's small bucket refuses); it keeps no 429 feedback
 * or discovered rate. Here each call is one round trip (a function doing SELECT … FOR UPDATE and
 * UPDATE in one statement) that grants `count` start times evenly spaced at the whole cluster's
 * rate (~200 ms of it), which the worker spends locally (shared-pacer.ts). docs/performance.md
 * has the measurement.
 *
 * The origin is the service's base URL without credentials, query or fragment: never a key.
 */
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import type {
  LeaseRequest,
  RateLimitedAnswer,
  RateLimitedReport,
  SharedBucket,
  SharedRate,
  StartLease
} from "../engine/flow/shared-bucket.ts"
import type { LedgerError } from "../ledger/ledger.ts"
import { migrateOnce, openPostgresPool, postgresFailure } from "../ledger/postgres-pool.ts"
import { sharedRateMigrations } from "./shared-rate-migrations.ts"

export interface SharedRateOptions {
  readonly url: Redacted.Redacted<string>
  /** Connections (default 2: leases of one model are one at a time per worker). */
  readonly poolSize?: number
  readonly connectTimeoutMs?: number
}

/** The bucket's name for a service: its base URL without user, password, query or fragment. */
export const originOf = (baseUrl: string): string => {
  try {
    const u = new URL(baseUrl)
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`
  } catch {
    // Not a URL: nothing of it is known to be safe but its shape, and it must still name one bucket.
    return baseUrl.replace(/\/\/[^/@]*@/, "//").split(/[?#]/)[0]!
  }
}

interface LeaseRow {
  readonly now_ms: number
  readonly first_in_ms: number
  readonly step_ms: number
  readonly starts: number
  readonly rate_per_s: number
  readonly is_probing: boolean
  readonly ceiling_per_s: number | null
  readonly decrease_count: number
}
interface LimitedRow {
  readonly paused_for_ms: number
  readonly was_decreased: boolean
  readonly rate_per_s: number
  readonly is_probing: boolean
  readonly ceiling_per_s: number | null
  readonly decrease_count: number
}

const stateOf = (row: LeaseRow | LimitedRow) => ({
  ratePerSecond: row.rate_per_s,
  probing: row.is_probing,
  ceilingPerSecond: row.ceiling_per_s ?? undefined,
  decreases: row.decrease_count
})

/** Opens the shared rate on a PostgreSQL database (its tables created once), for the scope. */
export const openSharedRate = (options: SharedRateOptions): Effect.Effect<SharedRate, LedgerError, Scope.Scope> =>
  Effect.gen(function* () {
    const url = Redacted.value(options.url)
    const failure = postgresFailure(url)
    const pool = yield* openPostgresPool({
      url,
      max: options.poolSize ?? 2,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000
    })

    // Migrations, once, by whichever worker gets the lock first.
    yield* Effect.tryPromise({
      try: () =>
        migrateOnce(pool, {
          lock: "svc-batch shared rate schema",
          versionTable: "shared_rate_schema",
          label: "shared rate schema",
          migrations: sharedRateMigrations
        }),
      catch: failure("cannot open the shared rate")
    })

    // A lost server dies with the LedgerError: pacing cannot go on without the bucket (exit 10).
    const call = <R>(what: string, name: string, text: string, values: ReadonlyArray<unknown>) =>
      Effect.orDie(
        Effect.tryPromise({
          try: () => pool.query<R & Record<string, unknown>>({ name, text, values: [...values] }),
          catch: failure(what)
        })
      ).pipe(Effect.map((result) => result.rows[0]!))

    const bucket = (baseUrl: string, model: string): SharedBucket => {
      const origin = originOf(baseUrl)
      return {
        lease: (r: LeaseRequest): Effect.Effect<StartLease> =>
          Effect.map(
            call<LeaseRow>(
              "cannot lease start times",
              "svc-batch-rate-lease",
              "SELECT * FROM svc_batch_rate_lease($1, $2, $3, $4, $5, $6::jsonb)",
              [
                origin,
                model,
                r.intervalMs ?? null,
                r.leaseMs,
                r.successes,
                r.intervalMs === undefined ? JSON.stringify(r.discovery) : null
              ]
            ),
            (row) => ({
              bucketNowMs: row.now_ms,
              firstInMs: row.first_in_ms,
              stepMs: row.step_ms,
              count: row.starts,
              ...stateOf(row)
            })
          ),
        rateLimited: (r: RateLimitedReport): Effect.Effect<RateLimitedAnswer> =>
          Effect.map(
            call<LimitedRow>(
              "cannot record a 429",
              "svc-batch-rate-limited",
              "SELECT * FROM svc_batch_rate_limited($1, $2, $3, $4, $5, $6, $7::jsonb)",
              [
                origin,
                model,
                r.intervalMs ?? null,
                r.startedAgoMs,
                r.retryAfterMs ?? null,
                r.successes,
                r.intervalMs === undefined ? JSON.stringify(r.discovery) : null
              ]
            ),
            (row) => ({ pausedForMs: row.paused_for_ms, decreased: row.was_decreased, ...stateOf(row) })
          )
      }
    }
    return { bucket }
  })

/** The shared rate as a service, for a command that opens it once (a cluster's worker). */
export class SharedRates extends Context.Tag("svc-batch/SharedRates")<SharedRates, SharedRate>() {
  static readonly layer = (options: SharedRateOptions) => Layer.scoped(SharedRates, openSharedRate(options))
}
