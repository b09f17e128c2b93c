/** The per-model limiter under TestClock: pacing, AIMD concurrency, pauses; with no rpm, rate discovery. */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Either, Fiber, Option, TestClock } from "effect"
import { makeLimiter } from "../../../src/engine/flow/limiter.ts"
import { defaultRetryPolicy, withRetry } from "../../../src/engine/flow/retry.ts"
import { RateLimitedError } from "../../../src/service/errors.ts"

describe("limiter", () => {
  it.effect(
    "a configured rate is a token bucket, empty at first: even starts, then a burst of what idle time refilled",
    () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter({ rpm: 600, maxConcurrency: 100 }) // 10/s: burst 10 − 1 margin, one start per 100 ms
        const now = limiter.run(Effect.clockWith((c) => c.currentTimeMillis))
        const first = yield* Effect.fork(
          Effect.forEach(Array.from({ length: 5 }), () => now, { concurrency: "unbounded" })
        )
        yield* TestClock.adjust(Duration.seconds(1))
        expect([...(yield* Fiber.join(first))].sort((a, b) => a - b)).toEqual([0, 100, 200, 300, 400])
        yield* TestClock.adjust(Duration.seconds(2)) // idle: the bucket refills
        const later = yield* Effect.fork(
          Effect.forEach(Array.from({ length: 12 }), () => now, { concurrency: "unbounded" })
        )
        yield* TestClock.adjust(Duration.seconds(2))
        expect([...(yield* Fiber.join(later))].sort((a, b) => a - b)).toEqual([
          3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000, 3100, 3200, 3300
        ])
      })
  )

  it.effect("time lost to a pause is made up with the refilled burst, never above the limit", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ rpm: 600, maxConcurrency: 100 })
      const starts: Array<number> = []
      const ask = limiter.run(
        Effect.clockWith((c) => c.currentTimeMillis).pipe(Effect.tap((t) => Effect.sync(() => starts.push(t))))
      )
      // A steady stream of work, as a job's workers give: 60 requests, 20 at a time.
      const fiber = yield* Effect.fork(
        Effect.forEach(Array.from({ length: 60 }), () => ask, { concurrency: 20, discard: true })
      )
      yield* TestClock.adjust(Duration.millis(1500)) // 0, 100, …, 1500: 16 starts
      expect(starts.length).toBe(16)
      yield* limiter.pauseFor(Duration.seconds(1)) // e.g. a Retry-After
      yield* TestClock.adjust(Duration.seconds(1))
      // At the end of the pause the bucket holds its burst again: 9 start at once…
      expect(starts.filter((t) => t === 2500).length).toBe(9)
      yield* TestClock.adjust(Duration.seconds(5))
      yield* Fiber.join(fiber)
      // …then one per 100 ms; over any 1-second window, at most the burst plus the rate.
      expect(starts.length).toBe(60)
      for (const t of starts) expect(starts.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(20)
      expect(Math.max(...starts)).toBe(2500 + 100 * 35)
    })
  )

  it.effect("after a 429 at the configured rate, starts are evenly paced (the service's bucket is smaller)", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ rpm: 600, maxConcurrency: 100 })
      yield* limiter.onRateLimited(undefined)
      const fiber = yield* Effect.fork(
        Effect.forEach(Array.from({ length: 5 }), () => limiter.run(Effect.clockWith((c) => c.currentTimeMillis)), {
          concurrency: "unbounded"
        })
      )
      yield* TestClock.adjust(Duration.seconds(2))
      expect([...(yield* Fiber.join(fiber))].sort((a, b) => a - b)).toEqual([100, 200, 300, 400, 500])
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
      const fiber = yield* Effect.fork(
        Effect.all(
          Array.from({ length: 40 }, () => task),
          { concurrency: "unbounded" }
        )
      )
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

  it.effect(
    "workers over the cap wait in line and get slots in arrival order; one interrupted in line never runs and frees its turn",
    () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter({ maxConcurrency: 1 })
        const release = yield* Deferred.make<void>()
        const ran: Array<string> = []
        const request = (name: string, wait?: Deferred.Deferred<void>) =>
          limiter.run(
            Effect.zipRight(
              Effect.sync(() => void ran.push(name)),
              wait === undefined ? Effect.void : Deferred.await(wait)
            )
          )
        const first = yield* Effect.fork(request("first", release))
        yield* Effect.yieldNow()
        const waiting = []
        for (const name of ["b", "c", "d", "e"]) {
          waiting.push(yield* Effect.fork(request(name)))
          yield* Effect.yieldNow()
        }
        expect(yield* limiter.state).toMatchObject({ inFlight: 1 })
        expect(ran).toEqual(["first"])
        const interruptC = yield* Effect.fork(Fiber.interrupt(waiting[1]!))
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        for (const f of [waiting[0]!, waiting[2]!, waiting[3]!]) yield* Fiber.join(f)
        yield* Fiber.join(interruptC)
        expect(ran).toEqual(["first", "b", "d", "e"])
        expect(yield* limiter.state).toMatchObject({ inFlight: 0 })
        // The line is empty again: a new request starts at once.
        yield* request("f")
        expect(ran.at(-1)).toBe("f")
      })
  )

  it.effect(
    "a request interrupted during its call gives its slot back; a failed one is a result, its slot given back too",
    () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter({ maxConcurrency: 1 })
        const hanging = yield* Effect.fork(limiter.runTimed(Effect.never))
        yield* Effect.yieldNow()
        expect(yield* limiter.state).toMatchObject({ inFlight: 1 })
        yield* Fiber.interrupt(hanging)
        expect(yield* limiter.state).toMatchObject({ inFlight: 0 })
        const failed = yield* limiter.runTimed(Effect.fail("boom"))
        expect(failed.result).toEqual(Either.left("boom"))
        expect(yield* limiter.state).toMatchObject({ inFlight: 0 })
        const ok = yield* limiter.runTimed(Effect.succeed(7))
        expect(ok.result).toEqual(Either.right(7))
      })
  )

  it.effect("a pause (Retry-After, 503) holds every worker of the model", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 4 })
      yield* limiter.pauseFor(Duration.seconds(5))
      let started = 0
      const fiber = yield* Effect.fork(
        Effect.all(
          Array.from({ length: 3 }, () => limiter.run(Effect.sync(() => started++))),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust(Duration.millis(4900))
      expect(started).toBe(0)
      yield* TestClock.adjust(Duration.millis(200))
      yield* Fiber.join(fiber)
      expect(started).toBe(3)
    })
  )
})

describe("limiter with no rpm (rate discovery)", () => {
  /** A token bucket on the test clock: `rps` per second, a burst of one second's worth. */
  const tokenBucket = (rps: number) => {
    let tokens = rps
    let last = 0
    return Effect.map(Clock.currentTimeMillis, (now) => {
      tokens = Math.min(rps, tokens + ((now - last) * rps) / 1000)
      last = now
      if (tokens >= 1) {
        tokens--
        return true
      }
      return false
    })
  }
  const rateLimited = new RateLimitedError({
    endpoint: "chat",
    serviceMessage: "slow down",
    retryAfter: Option.some(Duration.seconds(1))
  })

  it.effect("a decrease re-paces starts already scheduled at the old rate", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({
        maxConcurrency: 32,
        discover: { initialRate: 100, probeGain: 0, initialBurst: 0 }
      })
      const starts: Array<number> = []
      const fiber = yield* Effect.fork(
        Effect.all(
          Array.from({ length: 20 }, () =>
            limiter.runTimed(Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => starts.push(t))))
          ),
          { concurrency: "unbounded" }
        )
      )
      yield* TestClock.adjust(Duration.millis(45)) // 100/s: starts at 0, 10, … 40
      expect(starts).toHaveLength(5)
      // A 429 for a request started at 40 ms: 0.9 × the lower of the rate sent and the rate accepted.
      yield* limiter.onRateLimited(Duration.seconds(1), 40)
      yield* TestClock.adjust(Duration.millis(50))
      // At the old pace five more would have started by 95 ms; at 90/s (11.1 ms apart) only four.
      expect(starts.length).toBeLessThanOrEqual(9)
      yield* TestClock.adjust(Duration.seconds(5))
      yield* Fiber.join(fiber)
      const gaps = starts.slice(6).map((t, i) => t - starts[i + 5]!)
      for (const g of gaps) expect(g).toBeGreaterThan(10.5) // 90/s and recovering, not 100/s
    })
  )

  it.effect("while the service accepts, the first 64 starts do not wait for the initial rate's reservations", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 32, discover: true })
      const starts: Array<number> = []
      const attempt = Effect.flatMap(Clock.currentTimeMillis, (t) =>
        Effect.zipRight(
          Effect.sync(() => starts.push(t)),
          Effect.sleep(Duration.millis(50))
        )
      )
      const events = { onRetry: () => {}, on429: () => {} }
      yield* Effect.fork(
        Effect.forEach(Array.from({ length: 64 }), () => withRetry(limiter, defaultRetryPolicy, events, attempt), {
          concurrency: "unbounded",
          discard: true
        })
      )
      for (let ms = 0; ms < 1000; ms += 10) yield* TestClock.adjust(Duration.millis(10))
      // Reserved one by one at the initial 10/s they took 6.4 s; probing now moves the line along.
      expect(starts).toHaveLength(64)
      expect(starts[63]).toBeLessThan(1000)
    })
  )

  // Slow start: the initial burst's answers earn as many more starts at once (issue 29: a
  // 20-record job against a service that accepts everything is not paced; it was ~0.3 s).
  it.effect(
    "while the service accepts, 20 requests are not paced: ten at once, ten as the first ten are answered",
    () =>
      Effect.gen(function* () {
        const limiter = yield* makeLimiter({ maxConcurrency: 32, discover: true })
        const starts: Array<number> = []
        const attempt = Effect.flatMap(Clock.currentTimeMillis, (t) =>
          Effect.zipRight(
            Effect.sync(() => starts.push(t)),
            Effect.sleep(Duration.millis(100))
          )
        )
        const events = { onRetry: () => {}, on429: () => {} }
        yield* Effect.fork(
          Effect.forEach(Array.from({ length: 20 }), () => withRetry(limiter, defaultRetryPolicy, events, attempt), {
            concurrency: "unbounded",
            discard: true
          })
        )
        yield* TestClock.adjust(Duration.millis(100))
        expect(starts).toEqual([...Array(10).fill(0), ...Array(10).fill(100)])
      })
  )

  it.effect("after a 429, answers earn no starts at once: the rest is paced", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 32, discover: true })
      let first = true
      const starts: Array<number> = []
      const attempt = Effect.gen(function* () {
        starts.push(yield* Clock.currentTimeMillis)
        yield* Effect.sleep(Duration.millis(100))
        if (first) {
          first = false
          return yield* Effect.fail(rateLimited)
        }
        return "ok"
      })
      const events = { onRetry: () => {}, on429: () => {} }
      yield* Effect.fork(
        Effect.forEach(Array.from({ length: 20 }), () => withRetry(limiter, defaultRetryPolicy, events, attempt), {
          concurrency: "unbounded",
          discard: true
        })
      )
      yield* TestClock.adjust(Duration.millis(100))
      // The 429 came first (its answer at 100 ms), before the nine successes: none earns a start,
      // only the rate's (10/s) is due then.
      expect(starts.filter((t) => t === 100)).toHaveLength(1)
    })
  )

  it.effect("a short Retry-After delays only the rejected request; the others go on", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 4, discover: true })
      const ownWait = yield* limiter.onRateLimited(Duration.seconds(1), 0)
      expect(ownWait).toEqual(Duration.seconds(1))
      expect((yield* limiter.state).pausedUntil).toBe(0)
    })
  )

  it.effect("a long Retry-After (a spent quota) pauses every worker of the model", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 4, discover: true })
      const ownWait = yield* limiter.onRateLimited(Duration.seconds(30), 0)
      expect(ownWait).toBeUndefined()
      expect((yield* limiter.state).pausedUntil).toBe(30_000)
    })
  )

  // The 429 here comes back a full round trip late (the emulator answers it at once): the first
  // overshoot costs ~15 429s at 10/s, and recovering within seconds meets the limit every ~12 s.
  // Slow start's answer credits send ten more into this bucket of ten at the start: 53 429s of
  // 1,261 requests (4.2 %), against 44 of 1,252 without them — the price, once per run and only
  // where a second's burst is under 20, of not pacing a 20-record job (issue 29).
  it.effect("against a 600/min token bucket it holds 0.97 of the limit with under 4.5 % 429s", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 32, discover: true })
      const accept = tokenBucket(10)
      const log: Array<{ at: number; ok: boolean }> = []
      const attempt = Effect.gen(function* () {
        yield* Effect.sleep(Duration.millis(100)) // half the round trip
        const ok = yield* accept
        log.push({ at: yield* Clock.currentTimeMillis, ok })
        yield* Effect.sleep(Duration.millis(100))
        return ok ? yield* Effect.succeed("ok") : yield* Effect.fail(rateLimited)
      })
      const events = { onRetry: () => {}, on429: () => {} }
      yield* Effect.fork(
        Effect.forEach(Array.from({ length: 1300 }), () => withRetry(limiter, defaultRetryPolicy, events, attempt), {
          concurrency: 32,
          discard: true
        })
      )
      for (let s = 0; s < 120; s++) yield* TestClock.adjust(Duration.seconds(1))
      const after = log.filter((e) => e.at >= 60_000 && e.at < 120_000 && e.ok).length
      expect(after / 60 / 10).toBeGreaterThanOrEqual(0.97)
      expect(log.filter((e) => !e.ok).length / log.length).toBeLessThanOrEqual(0.045)
      const found = limiter.discovered()!
      expect(found.suggestedRpm).toBeGreaterThan(540)
      expect(found.suggestedRpm).toBeLessThan(660)
    })
  )
})
