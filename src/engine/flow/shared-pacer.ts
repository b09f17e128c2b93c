/**
 * A model's starts paced from a shared bucket (shared-bucket.ts) instead of the limiter's own
 * GCRA: the worker leases a few start times at once (one round trip per lease, ~200 ms of the
 * rate) and spends them locally, asking for the next lease (in the background) when half of the
 * last is left, so the round trip overlaps the starts still held. A lease's starts are consecutive at the whole cluster's rate, so
 * starts of several workers interleave lease by lease and their sum keeps the rate.
 *
 * - A start not taken within `lateMs` of its time is dropped, not made up in a burst.
 * - A 429 is told to the bucket: a pause (Retry-After) or a lower discovered rate is what every
 *   worker's next lease sees; this worker drops the starts it holds at once.
 * - Successes are counted locally and reported with the next call (they raise a discovered rate).
 */
import { Clock, Deferred, Duration, Effect, FiberId } from "effect"
import { defaultRateDiscovery, type DiscoveredRate, type RateDiscoverySettings } from "./rate-discovery.ts"
import type { SharedBucket, SharedRateState } from "./shared-bucket.ts"

export interface SharedPacerSettings {
  /** Configured requests per minute; undefined: the rate every worker discovers together. */
  readonly rpm?: number | undefined
  /** Time one lease covers at the rate (default 200 ms). */
  readonly leaseMs?: number | undefined
  /**
   * How late a leased start may still be taken (default 500 ms: half the depth of a service bucket
   * holding a second's worth, as the emulator's); an older one is dropped, not made up in a burst.
   */
  readonly lateMs?: number | undefined
  readonly discovery?: Partial<RateDiscoverySettings> | undefined
}

interface Segment {
  next: number
  readonly step: number
  left: number
}

export const makeSharedPacer = (bucket: SharedBucket, settings: SharedPacerSettings) => {
  const intervalMs = settings.rpm !== undefined && settings.rpm > 0 ? 60_000 / settings.rpm : undefined
  const leaseMs = settings.leaseMs ?? 200
  const lateMs = settings.lateMs ?? 500
  const discovery: RateDiscoverySettings = { ...defaultRateDiscovery, ...settings.discovery }
  // Leased starts not yet taken, oldest first, on this worker's clock.
  const segments: Array<Segment> = []
  let held = 0
  let lastCount = 1
  let leasing: Deferred.Deferred<void> | undefined
  let successes = 0
  // Bumped when held starts are dropped: a worker sleeping towards one draws again.
  let epoch = 0
  let pausedUntil = 0
  let seen: SharedRateState | undefined
  // The bucket's clock less this worker's, from the lease with the shortest round trip (off by at
  // most half of it); the best round trip kept is counted 1 ms longer per 10 s, so drift is followed.
  // A lease answered late (a busy event loop) thus never shifts its starts later, onto the next's.
  let offset = 0
  let offsetRtt = Number.POSITIVE_INFINITY
  let offsetAt = 0

  /** The next held start at or after `now − lateMs` (older ones are dropped). */
  const take = (now: number): number | undefined => {
    while (segments.length > 0) {
      const s = segments[0]!
      const stale = s.next < now - lateMs ? Math.min(s.left, Math.ceil((now - lateMs - s.next) / s.step)) : 0
      s.next += stale * s.step
      s.left -= stale
      held -= stale
      if (s.left > 0) {
        const at = s.next
        s.next += s.step
        s.left--
        held--
        if (s.left === 0) segments.shift()
        return at
      }
      segments.shift()
    }
    return undefined
  }

  const drop = () => {
    segments.length = 0
    held = 0
    epoch++
  }

  /** One lease (or waits for the one in flight); runs to its end once started. */
  const refill: Effect.Effect<void> = Effect.suspend(() => {
    if (leasing !== undefined) return Deferred.await(leasing)
    const done = Deferred.unsafeMake<void>(FiberId.none)
    leasing = done
    const reported = successes
    successes = 0
    return Effect.flatMap(Clock.currentTimeMillis, (sentAt) =>
      Effect.flatMap(bucket.lease({ intervalMs, leaseMs, successes: reported, discovery }), (lease) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const rtt = now - sentAt
          if (rtt <= offsetRtt + (now - offsetAt) / 10_000) {
            offset = lease.bucketNowMs - (sentAt + now) / 2
            offsetRtt = rtt
            offsetAt = now
          }
          seen = lease
          segments.push({ next: lease.bucketNowMs - offset + lease.firstInMs, step: lease.stepMs, left: lease.count })
          held += lease.count
          lastCount = lease.count
        })
      )
    ).pipe(
      Effect.ensuring(
        Effect.suspend(() => {
          leasing = undefined
          return Deferred.succeed(done, undefined)
        })
      ),
      Effect.uninterruptible
    )
  })

  /** Waits out a pause, then for a leased start; gives the time the start was granted. */
  const pace: Effect.Effect<number> = Effect.gen(function* () {
    while (true) {
      const now = yield* Clock.currentTimeMillis
      if (now < pausedUntil) {
        yield* Effect.sleep(Duration.millis(pausedUntil - now))
        continue
      }
      const at = take(now)
      if (at === undefined) {
        yield* refill
        continue
      }
      // Half the last lease left: the next one is asked for now, beside this start (a lost server
      // then fails the next request that waits for a lease).
      if (held < lastCount / 2 && leasing === undefined) yield* Effect.forkDaemon(refill)
      if (at <= now) return now
      const drawnIn = epoch
      yield* Effect.sleep(Duration.millis(at - now))
      if (epoch === drawnIn) return at
    }
  })

  return {
    pace,
    /** A success: reported with the next call to the bucket. */
    onSuccess: () => void successes++,
    /**
     * A 429 for a request started at `startedAt`: told to the bucket. A pause it sets (or a lower
     * rate) drops the starts this worker holds; discovering, a short Retry-After is the rejected
     * request's alone to wait (returned).
     */
    onRateLimited: (
      retryAfter: Duration.Duration | undefined,
      startedAt: number
    ): Effect.Effect<Duration.Duration | undefined> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const reported = successes
        successes = 0
        const answer = yield* bucket.rateLimited({
          intervalMs,
          startedAgoMs: Math.max(0, now - startedAt),
          retryAfterMs: retryAfter === undefined ? undefined : Duration.toMillis(retryAfter),
          successes: reported,
          discovery
        })
        seen = answer
        if (answer.pausedForMs > 0) {
          pausedUntil = Math.max(pausedUntil, (yield* Clock.currentTimeMillis) + answer.pausedForMs)
          drop()
          return undefined
        }
        if (answer.decreased) drop()
        return intervalMs === undefined ? retryAfter : undefined
      }),
    /** A pause of this worker alone (503 with Retry-After): the held starts are dropped. */
    pauseFor: (d: Duration.Duration): Effect.Effect<void> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const until = now + Duration.toMillis(d)
        if (until <= pausedUntil) return
        pausedUntil = until
        drop()
      }),
    pausedUntil: () => pausedUntil,
    /** Discovering: the shared rate as last seen (the same for every worker). */
    discovered: (): DiscoveredRate | undefined =>
      intervalMs !== undefined || seen === undefined
        ? undefined
        : {
            probing: seen.probing,
            rpm: seen.ratePerSecond * 60,
            ceilingRpm: seen.ceilingPerSecond === undefined ? undefined : seen.ceilingPerSecond * 60,
            decreases: seen.decreases,
            suggestedRpm: seen.probing ? undefined : Math.floor(seen.ratePerSecond * 60)
          },
    /** Starts leased and not yet taken (tests). */
    held: () => held
  }
}

export type SharedPacer = ReturnType<typeof makeSharedPacer>
