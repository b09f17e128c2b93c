/**
 * The limiter paced from a shared bucket (shared-pacer.ts) under TestClock, with an in-memory bucket
 * standing in for the PostgreSQL one: leases spent locally, two workers interleaved at the one rate,
 * a 429 met by one pausing the other, starts held too long dropped rather than burst.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, TestClock } from "effect"
import { makeLimiter } from "../../../src/engine/flow/limiter.ts"
import type { SharedBucket } from "../../../src/engine/flow/shared-bucket.ts"

/** A GCRA bucket without burst on the test clock, as the PostgreSQL function keeps it (configured rates). */
const memoryBucket = (answerDelays: Array<number> = []) => {
  let tat = 0
  let pausedUntil = 0
  const calls = { leases: 0, rateLimited: 0 }
  const state = { ratePerSecond: 10, probing: false, ceilingPerSecond: undefined, decreases: 0 }
  const bucket: SharedBucket = {
    lease: (r) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        calls.leases++
        const step = r.intervalMs!
        const count = Math.max(1, Math.floor(r.leaseMs / step))
        const first = Math.max(tat, now, pausedUntil)
        tat = first + count * step
        return { ...state, bucketNowMs: now, firstInMs: first - now, stepMs: step, count }
      }).pipe(Effect.tap(() => Effect.sleep(Duration.millis(answerDelays.shift() ?? 0)))),
    rateLimited: (r) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        calls.rateLimited++
        if (r.retryAfterMs !== undefined) pausedUntil = Math.max(pausedUntil, now + r.retryAfterMs)
        return { ...state, pausedForMs: Math.max(0, pausedUntil - now), decreased: false }
      })
  }
  return { bucket, calls }
}

/** `n` requests through `limiter`, `concurrency` at a time, each noting when it started. */
const load = (
  limiter: Effect.Effect.Success<ReturnType<typeof makeLimiter>>,
  n: number,
  starts: Array<number>,
  concurrency = 8
) =>
  Effect.fork(
    Effect.forEach(
      Array.from({ length: n }),
      () => limiter.run(Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => starts.push(t)))),
      { concurrency, discard: true }
    )
  )

describe("shared pacer", () => {
  it.effect("two workers on one bucket: starts interleave lease by lease, together at the one rate", () =>
    Effect.gen(function* () {
      const { bucket, calls } = memoryBucket()
      // 600/min = one start per 100 ms; a lease covers 200 ms: two starts.
      const a = yield* makeLimiter({ rpm: 600, maxConcurrency: 8, shared: bucket })
      const b = yield* makeLimiter({ rpm: 600, maxConcurrency: 8, shared: bucket })
      const starts: Array<number> = []
      const fa = yield* load(a, 20, starts)
      const fb = yield* load(b, 20, starts)
      yield* TestClock.adjust(Duration.seconds(10))
      yield* Fiber.join(fa)
      yield* Fiber.join(fb)
      const sorted = [...starts].sort((x, y) => x - y)
      // 40 starts, never two within 100 ms over both workers (each alone would start 20 in 2 s),
      // on the 100 ms grid; at the end a lease asked ahead may go unused: 4.1 s at most.
      expect(sorted.length).toBe(40)
      expect(sorted.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => i * 100))
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(100)
      expect(sorted.every((t) => t % 100 === 0)).toBe(true)
      expect(sorted.at(-1)).toBeLessThanOrEqual(4100)
      // One lease per two starts, and at the end one asked ahead by each worker (half its last left).
      expect(calls.leases).toBeLessThanOrEqual(22)
    })
  )

  it.effect("a 429 with Retry-After met by one worker pauses the other at its next lease", () =>
    Effect.gen(function* () {
      const { bucket, calls } = memoryBucket()
      const a = yield* makeLimiter({ rpm: 600, maxConcurrency: 8, shared: bucket })
      const b = yield* makeLimiter({ rpm: 600, maxConcurrency: 8, shared: bucket })
      const starts: Array<number> = []
      // One request at a time: b holds the starts of its lease and of the one it asked ahead.
      const fb = yield* load(b, 10, starts, 1)
      yield* TestClock.adjust(Duration.millis(250))
      const retry = yield* a.onRateLimited(Duration.seconds(3), 200)
      expect(retry).toBeUndefined() // every worker pauses: nothing left for the request alone
      expect(calls.rateLimited).toBe(1)
      expect((yield* a.state).pausedUntil).toBe(3250)
      yield* TestClock.adjust(Duration.seconds(10))
      yield* Fiber.join(fb)
      // b spends what it held when the 429 came (up to 500 ms), then nothing before 3,250.
      const early = starts.filter((t) => t < 3250)
      expect(early).toEqual([0, 100, 200, 300, 400, 500].slice(0, early.length))
      expect(early.length).toBeLessThan(10)
      expect(starts.filter((t) => t >= 3250).length).toBe(10 - early.length)
      expect(Math.min(...starts.filter((t) => t >= 3250))).toBe(3250)
    })
  )

  it.effect("starts held longer than 500 ms past their time are dropped, not started in a burst", () =>
    Effect.gen(function* () {
      const { bucket } = memoryBucket()
      // 6,000/min: 20 starts per 200 ms lease.
      const a = yield* makeLimiter({ rpm: 6000, maxConcurrency: 8, shared: bucket })
      const starts: Array<number> = []
      const first = yield* load(a, 1, starts)
      yield* TestClock.adjust(Duration.millis(1))
      yield* Fiber.join(first)
      // The worker holds 19 starts (10 ms apart from 10 ms) and is idle for a second.
      yield* TestClock.adjust(Duration.seconds(1))
      const later = yield* load(a, 8, starts)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* Fiber.join(later)
      // None of the stale ones: the next starts come from a new lease, evenly at 10 ms.
      expect(starts.slice(1)).toEqual(Array.from({ length: 8 }, (_, i) => 1001 + i * 10))
    })
  )

  it.effect("a lease answered late keeps its starts at the bucket's times (mapped by the fastest round trip)", () =>
    Effect.gen(function* () {
      // The first two leases answer at once, the third 150 ms after the bucket granted it.
      const { bucket } = memoryBucket([0, 0, 150])
      const a = yield* makeLimiter({ rpm: 600, maxConcurrency: 1, shared: bucket })
      const starts: Array<number> = []
      const fiber = yield* load(a, 8, starts, 1)
      yield* TestClock.adjust(Duration.seconds(5))
      yield* Fiber.join(fiber)
      // Had the late answer been read as "granted now", its starts would sit 150 ms later.
      expect(starts).toEqual([0, 100, 200, 300, 400, 500, 600, 700])
    })
  )
})
