/**
 * A cluster run's settings: the job file's `cluster:` section (or `run --cluster URL`), defaults
 * filled in. The URL is the shared PostgreSQL: the ledger and the queue of work units.
 */
import { Schema } from "effect"

const PositiveInt = Schema.Int.pipe(Schema.positive())

/** The job file's `cluster:` section. */
export const ClusterSection = Schema.Struct({
  /** postgres://user:password@host:5432/db, shared by the coordinator and every worker. */
  url: Schema.optional(Schema.String),
  /** About this many records per work unit (default 5,000). */
  unitRecords: Schema.optional(PositiveInt),
  /** Attempts of a unit after its first (a worker lost, a failure) before the run stops (default 3). */
  retryLimit: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  /**
   * A unit whose worker has not reported for this long is given to another (default 60 s); workers
   * report every quarter of it.
   */
  staleSeconds: Schema.optional(PositiveInt)
})
export type ClusterSection = typeof ClusterSection.Type

export interface ClusterSettings {
  readonly unitRecords: number
  readonly retryLimit: number
  readonly staleSeconds: number
}

export const clusterSettings = (section: ClusterSection | undefined): ClusterSettings => ({
  unitRecords: section?.unitRecords ?? 5_000,
  retryLimit: section?.retryLimit ?? 3,
  staleSeconds: section?.staleSeconds ?? 60
})

/** The pg-boss queue every unit of every job goes to (workers take units of any job). */
export const UNIT_QUEUE = "svc-batch-units"
