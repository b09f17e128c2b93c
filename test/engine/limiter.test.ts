/** The per-model limiter under TestClock: pacing, AIMD concurrency, pauses. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, TestClock } from "effect"
import { makeLimiter } from "../../src/engine/limiter.ts"

describe("limiter", () => {
  it.effect("paces starts evenly at the configured requests per minute", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ rpm: 600, maxConcurrency: 100 }) // one start per 100 ms
      const starts: Array<number> = []
      const fiber = yield* Effect.fork(
        Effect.forEach(
          Array.from({ length: 10 }, (_, i) => i),
          () => limiter.run(Effect.sync(() => starts.push(Date.now()))).pipe(Effect.zipRight(Effect.clockWith((c) => c.currentTimeMillis))),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust(Duration.millis(450))
      // At 450 ms: starts at 0, 100, 200, 300, 400.
      const times = yield* Effect.sync(() => starts.length)
      expect(times).toBe(5)
      yield* TestClock.adjust(Duration.seconds(1))
      const clockTimes = yield* Fiber.join(fiber)
      expect([...clockTimes].sort((a, b) => a - b)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900])
    })
  )

  it.effect("caps concurrency, halves the cap on 429 and grows it back by successes", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 8 })
      let peak = 0
      let current = 0
      const task = limiter.run(
        Effect.gen(function* () {
          current++
          peak = Math.max(peak, current)
          yield* Effect.sleep(Duration.millis(10))
          current--
        })
      )
      const fiber = yield* Effect.fork(Effect.all(Array.from({ length: 40 }, () => task), { concurrency: "unbounded" }))
      yield* TestClock.adjust(Duration.seconds(1))
      yield* Fiber.join(fiber)
      expect(peak).toBe(8)

      yield* limiter.onRateLimited(undefined)
      expect((yield* limiter.state).cap).toBe(4)
      yield* limiter.onRateLimited(undefined)
      yield* limiter.onRateLimited(undefined)
      yield* limiter.onRateLimited(undefined)
      expect((yield* limiter.state).cap).toBe(1) // never below one
      for (let i = 0; i < 3; i++) yield* limiter.onSuccess()
      expect(Math.floor((yield* limiter.state).cap)).toBe(2)
      for (let i = 0; i < 200; i++) yield* limiter.onSuccess()
      expect((yield* limiter.state).cap).toBe(8) // never above the maximum
    })
  )

  it.effect("a pause (Retry-After, 503) holds every worker of the model", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 4 })
      yield* limiter.pauseFor(Duration.seconds(5))
      let started = 0
      const fiber = yield* Effect.fork(Effect.all(Array.from({ length: 3 }, () => limiter.run(Effect.sync(() => started++))), { concurrency: "unbounded" }))
      yield* TestClock.adjust(Duration.millis(4900))
      expect(started).toBe(0)
      yield* TestClock.adjust(Duration.millis(200))
      yield* Fiber.join(fiber)
      expect(started).toBe(3)
    })
  )
})
