/**
 * What `status --cluster` shows of the shared rate: per (service, model), the requests per minute
 * the service answered lately (every worker and job on the database together; see migration 2 in
 * shared-rate-migrations.ts) and the rate discovery found, if any. Only reads: a database no
 * cluster has paced through yet has no such table, and shows nothing.
 */
import { Effect, Redacted } from "effect"
import { postgresFailure, openPostgresPool } from "../ledger/postgres-pool.ts"

export interface ServedRate {
  readonly origin: string
  readonly model: string
  /** Answered requests per minute, over about the last 10 s. */
  readonly perMinute: number
  /** The discovered rate per minute (a model without limits.rpm); null when paced by limits.rpm. */
  readonly discoveredPerMinute: number | null
}

/** No table or column yet (no cluster ran here, or one older than this reader). */
const NOT_YET = new Set(["42P01", "42703", "42883"])

export const servedRates = (url: Redacted.Redacted<string>, models: ReadonlyArray<string>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const plain = Redacted.value(url)
      const pool = yield* openPostgresPool({ url: plain, max: 1, connectTimeoutMs: 10_000 })
      return yield* Effect.tryPromise({
        try: () =>
          pool
            .query<{ origin: string; model: string; per_minute: number; rate: number | null; probing: boolean }>(
              `SELECT origin, model, rate, probing,
                      60000 * served * svc_batch_decay(extract(epoch FROM clock_timestamp()) * 1000 - served_at, 10000)
                        AS per_minute
                 FROM shared_rates WHERE model = ANY($1) ORDER BY model, origin`,
              [[...models]]
            )
            .then((r) =>
              r.rows.map((row): ServedRate => ({
                origin: row.origin,
                model: row.model,
                perMinute: Number(row.per_minute),
                discoveredPerMinute: row.rate === null ? null : Number(row.rate) * 60
              }))
            )
            .catch((e: unknown) => {
              const code = typeof e === "object" && e !== null && "code" in e ? String(e.code) : ""
              if (NOT_YET.has(code)) return [] as Array<ServedRate>
              throw e
            }),
        catch: postgresFailure(plain)("cannot read the shared rates")
      })
    })
  )
