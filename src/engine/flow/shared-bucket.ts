/**
 * The port of a request rate shared with other workers (a cluster's, src/cluster/shared-rate.ts):
 * one bucket per (origin, model) that hands out start times in small leases, and hears of the 429s
 * any worker meets. The flow paces a model's starts from it (shared-pacer.ts) instead of its own
 * GCRA when the run is given one; concurrency caps and retries stay local.
 *
 * The bucket's clock orders every start: a lease says when, on that clock, it was granted, and the
 * worker maps it onto its own (shared-pacer.ts), so workers whose clocks disagree share one schedule.
 */
import type { Effect } from "effect"
import type { RateDiscoverySettings } from "./rate-discovery.ts"

/** What a bucket knows of the shared rate (a configured rpm, or the one learnt by every worker). */
export interface SharedRateState {
  /** Starts per second the bucket paces to (the configured rate, or the discovered one). */
  readonly ratePerSecond: number
  /** Discovering, and no 429 met yet by any worker. */
  readonly probing: boolean
  /** Discovering: the accepted rate at the last 429 (per second). */
  readonly ceilingPerSecond: number | undefined
  /** Discovering: decreases so far (one per overshoot, whichever worker met it). */
  readonly decreases: number
}

/** Start times granted to this worker: `count` starts, `stepMs` apart, the first `firstInMs` after `bucketNowMs`. */
export interface StartLease extends SharedRateState {
  /** The bucket's clock when it granted the lease (ms). */
  readonly bucketNowMs: number
  readonly firstInMs: number
  readonly stepMs: number
  readonly count: number
}

export interface RateLimitedAnswer extends SharedRateState {
  /** Every worker pauses this long from now (0: no pause; the rejected request waits its Retry-After alone). */
  readonly pausedForMs: number
  /** The shared rate was lowered by this 429 (false: the same overshoot as an earlier one). */
  readonly decreased: boolean
}

export interface LeaseRequest {
  /** The configured interval between starts (60,000 / rpm); undefined: the shared discovered rate. */
  readonly intervalMs: number | undefined
  /** How much time the lease should cover at the rate (its count is at least 1). */
  readonly leaseMs: number
  /** Requests answered since this worker's last call (they raise a discovered rate). */
  readonly successes: number
  readonly discovery: RateDiscoverySettings
}

export interface RateLimitedReport {
  readonly intervalMs: number | undefined
  /** How long ago the rejected request started (a 429 for a start before the last decrease is the same overshoot). */
  readonly startedAgoMs: number
  readonly retryAfterMs: number | undefined
  readonly successes: number
  readonly discovery: RateDiscoverySettings
}

/** One (origin, model)'s bucket. A bucket that cannot be reached dies (the run cannot pace without it). */
export interface SharedBucket {
  readonly lease: (request: LeaseRequest) => Effect.Effect<StartLease>
  readonly rateLimited: (report: RateLimitedReport) => Effect.Effect<RateLimitedAnswer>
}

/** The buckets of one shared store. `baseUrl` is the service's (its origin names the bucket, never a key). */
export interface SharedRate {
  readonly bucket: (baseUrl: string, model: string) => SharedBucket
}
