/**
 * Per-model limiter: requests per minute (evenly paced: one start every 60/rpm s, so the service's
 * own bucket never drains), a concurrency cap that halves on 429 and grows back by one per
 * window of successes (AIMD), and pauses of every worker of the model (Retry-After, 503).
 * All timing goes through Effect's Clock, so tests drive it with TestClock.
 */
import { Clock, Deferred, Duration, Effect } from "effect"

export interface LimiterSettings {
  /** Requests per minute; undefined = no rate limit (the concurrency cap still applies). */
  readonly rpm?: number | undefined
  /** Most requests in flight; the AIMD cap starts here and never exceeds it. */
  readonly maxConcurrency: number
}

export interface LimiterState {
  readonly cap: number
  readonly inFlight: number
  readonly pausedUntil: number
}

export const makeLimiter = (settings: LimiterSettings) =>
  Effect.sync(() => {
    const max = Math.max(1, settings.maxConcurrency)
    const interval = settings.rpm !== undefined && settings.rpm > 0 ? 60_000 / settings.rpm : 0
    let cap = max
    let inFlight = 0
    let nextStart = 0
    let pausedUntil = 0
    // FIFO of workers waiting for a slot; a released slot is handed to the first one.
    const waiters: Array<Deferred.Deferred<void>> = []

    /** Hands free slots (under the current cap) to waiting workers, oldest first. */
    const grant = Effect.suspend(() => {
      const handed: Array<Deferred.Deferred<void>> = []
      while (waiters.length > 0 && inFlight < Math.floor(cap)) {
        inFlight++
        handed.push(waiters.shift()!)
      }
      return handed.length === 0 ? Effect.void : Effect.forEach(handed, (d) => Deferred.succeed(d, undefined), { discard: true })
    })

    /** Takes a slot, waiting in line when the cap is reached. */
    const takeSlot: Effect.Effect<void> = Effect.suspend(() => {
      if (waiters.length === 0 && inFlight < Math.floor(cap)) {
        inFlight++
        return Effect.void
      }
      return Deferred.make<void>().pipe(
        Effect.flatMap((d) => {
          waiters.push(d)
          return Deferred.await(d).pipe(
            Effect.onInterrupt(() =>
              Effect.suspend(() => {
                const i = waiters.indexOf(d)
                if (i >= 0) {
                  waiters.splice(i, 1)
                  return Effect.void
                }
                // The slot was handed over just as we were interrupted: give it back.
                return releaseSlot
              })
            )
          )
        })
      )
    })

    const releaseSlot: Effect.Effect<void> = Effect.suspend(() => {
      inFlight--
      return grant
    })

    /** Waits out any pause, then for this request's start time under the rate. */
    const pace: Effect.Effect<void> = Effect.gen(function* () {
      let now = yield* Clock.currentTimeMillis
      while (now < pausedUntil) {
        yield* Effect.sleep(Duration.millis(pausedUntil - now))
        now = yield* Clock.currentTimeMillis
      }
      if (interval === 0) return
      const at = Math.max(now, nextStart)
      nextStart = at + interval
      if (at > now) yield* Effect.sleep(Duration.millis(at - now))
    })

    return {
      /** Runs `effect` as one request of this model: slot, pause, pace, then the call. */
      run: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        Effect.acquireUseRelease(takeSlot, () => Effect.zipRight(pace, effect), () => releaseSlot),
      /** A 429: halve the cap; pause every worker for Retry-After when the service sent one. */
      onRateLimited: (retryAfter: Duration.Duration | undefined) =>
        Effect.gen(function* () {
          cap = Math.max(1, cap / 2)
          if (retryAfter !== undefined) yield* pauseFor(retryAfter)
        }),
      /** A success: additive increase, about +1 per `cap` successes. */
      onSuccess: Effect.suspend(() => {
        const before = Math.floor(cap)
        cap = Math.min(max, cap + 1 / Math.max(1, cap))
        return Math.floor(cap) > before ? grant : Effect.void
      }),
      /** Pauses every worker of the model (503 maintenance, Retry-After). */
      pauseFor: (d: Duration.Duration) => pauseFor(d),
      state: Effect.sync((): LimiterState => ({ cap, inFlight, pausedUntil }))
    }

    function pauseFor(d: Duration.Duration) {
      return Clock.currentTimeMillis.pipe(
        Effect.map((now) => void (pausedUntil = Math.max(pausedUntil, now + Duration.toMillis(d))))
      )
    }
  })

export type Limiter = Effect.Effect.Success<ReturnType<typeof makeLimiter>>
