/** The dispatcher under TestClock: the flow's pieces composed behind `send`, `record` and `records`. */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Either, Exit, Fiber, Option, Scope, Stream, TestClock } from "effect"
import { defaultRetryPolicy, type FlowSettings, makeDispatcher } from "../../../src/engine/flow/dispatcher.ts"
import type { DiscoveredRate } from "../../../src/engine/flow/rate-discovery.ts"
import {
  BadRequestError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  type ServiceError
} from "../../../src/service/errors.ts"

const endpoint = "chat" as const
const after = (seconds: number | undefined) =>
  seconds === undefined ? Option.none() : Option.some(Duration.seconds(seconds))
const rateLimited = (seconds?: number) =>
  new RateLimitedError({ endpoint, serviceMessage: "slow down", retryAfter: after(seconds) })
const unavailable = (seconds?: number) =>
  new ServerError({ endpoint, status: 503, serviceMessage: "maintenance", retryAfter: after(seconds) })
const notFound = () => new NotFoundError({ endpoint, serviceMessage: "no such route" })
const badRequest = () => new BadRequestError({ endpoint, serviceMessage: "no" })

/** The statistics the flow contributes, counted. */
const counting = () => {
  const counts = { requests: 0, retries: 0, rateLimited: 0 }
  const rates = new Map<string, () => DiscoveredRate | undefined>()
  return {
    counts,
    rates,
    stats: {
      request: () => void counts.requests++,
      retry: () => void counts.retries++,
      rateLimited: () => void counts.rateLimited++,
      watchRate: (model: string, read: () => DiscoveredRate | undefined) => void rates.set(model, read)
    }
  }
}

/**
 * One try of a request: notes when it went out, then fails with the next scripted error (every
 * later try succeeds). Shared by the sends of a test: the script is the service's answers in order.
 */
const scripted = (errors: Array<ServiceError>, starts: Array<number>) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    starts.push(now)
    const error = errors.shift()
    return error === undefined ? Effect.succeed(now) : Effect.fail(error)
  })

const settings = (overrides: Partial<FlowSettings> = {}): FlowSettings => ({
  rpm: { "*": 60_000 },
  maxConcurrency: 4,
  retry: defaultRetryPolicy,
  ...overrides
})

describe("dispatcher", () => {
  it.scoped("a 429 slows the model's later sends: they wait out its Retry-After", () =>
    Effect.gen(function* () {
      const { counts, stats } = counting()
      const dispatcher = yield* makeDispatcher(settings({ rpm: { m: 600 } }), stats)
      const starts: Array<number> = []
      const attempt = scripted([rateLimited(2)], starts)
      const first = yield* Effect.fork(dispatcher.send("m", attempt))
      yield* TestClock.adjust(Duration.millis(1)) // the first try is answered 429
      const later = yield* Effect.fork(dispatcher.send("m", attempt))
      yield* TestClock.adjust(Duration.millis(1_900))
      expect(starts).toEqual([0]) // nothing goes out during the Retry-After
      yield* TestClock.adjust(Duration.seconds(2))
      yield* Fiber.join(first)
      expect(yield* Fiber.join(later)).toBeGreaterThanOrEqual(2_000)
      expect(counts).toEqual({ requests: 3, retries: 0, rateLimited: 1 })
    })
  )

  it.scoped("with no rpm, a 429 lowers the rate learnt for the model: its later sends are paced slower", () =>
    Effect.gen(function* () {
      const { rates, stats } = counting()
      const dispatcher = yield* makeDispatcher(
        settings({ rpm: {}, discovery: { initialRate: 10, probeGain: 0, initialBurst: 0, slackMs: 0 } }),
        stats
      )
      const starts: Array<number> = []
      const errors: Array<ServiceError> = []
      const attempt = scripted(errors, starts)
      const fiber = yield* Effect.fork(
        Effect.forEach(
          Array.from({ length: 10 }, (_, i) => i),
          // The fifth is answered 429 (once): a delay, not a failure.
          (i) =>
            Effect.zipRight(
              Effect.sync(() => void (i === 4 && errors.push(rateLimited()))),
              dispatcher.send("m", attempt)
            ),
          { discard: true }
        )
      )
      yield* TestClock.adjust(Duration.minutes(1))
      yield* Fiber.join(fiber)
      const gaps = starts.slice(1).map((t, i) => t - starts[i]!)
      expect(gaps.slice(0, 4)).toEqual([100, 100, 100, 100]) // 10/s while probing
      for (const gap of gaps.slice(5)) expect(gap).toBeGreaterThan(100)
      expect(rates.get("m")?.()).toMatchObject({ probing: false, decreases: 1 })
    })
  )

  it.scoped("a 503's and a 429's Retry-After decide when the retry goes out", () =>
    Effect.gen(function* () {
      const { counts, stats } = counting()
      const dispatcher = yield* makeDispatcher(settings(), stats)
      const starts: Array<number> = []
      const fiber = yield* Effect.fork(dispatcher.send("m", scripted([unavailable(5), rateLimited(3)], starts)))
      yield* TestClock.adjust(Duration.millis(4_999))
      expect(starts).toEqual([0])
      yield* TestClock.adjust(Duration.seconds(4))
      expect(yield* Fiber.join(fiber)).toBe(8_000)
      expect(starts).toEqual([0, 5_000, 8_000])
      expect(counts).toEqual({ requests: 3, retries: 1, rateLimited: 1 })
    })
  )

  it.scoped("the circuit breaker aborts after a streak of systemic failures; a record's own failure breaks it", () =>
    Effect.gen(function* () {
      const dispatcher = yield* makeDispatcher(settings({ breakerThreshold: 3 }), counting().stats)
      const failing = (error: ServiceError) => Effect.either(dispatcher.send("m", Effect.fail(error)))
      const streak = yield* Effect.fork(
        Effect.forEach([notFound(), notFound(), badRequest(), notFound(), notFound(), notFound()], failing)
      )
      yield* TestClock.adjust(Duration.seconds(1)) // the model's starts are paced
      const outcomes = yield* Fiber.join(streak)
      expect(outcomes.map((o) => (Either.isLeft(o) ? o.left._tag : "Right"))).toEqual([
        "RequestFailed",
        "RequestFailed",
        "RequestFailed",
        "RequestFailed",
        "RequestFailed",
        "JobAborted"
      ])
      expect(Either.isLeft(outcomes[5]!) && outcomes[5].left.message).toContain(
        "3 requests in a row were answered 404 Not Found"
      )
    })
  )

  it.scoped("the request budget stops the records: what is over it is never sent", () =>
    Effect.gen(function* () {
      const { counts, stats } = counting()
      const dispatcher = yield* makeDispatcher(settings({ maxRequests: 3, recordConcurrency: 2 }), stats)
      const done: Array<number> = []
      const result = yield* dispatcher
        .records({
          items: Stream.range(1, 10),
          process: (i) =>
            Effect.zipRight(
              dispatcher.send("m", Effect.sleep(Duration.millis(10))),
              Effect.sync(() => void done.push(i))
            )
        })
        .pipe(
          Effect.fork,
          Effect.tap(() => TestClock.adjust(Duration.seconds(1))),
          Effect.flatMap(Fiber.join)
        )
      expect(result).toEqual({ stopped: true, budgetSpent: true })
      expect(counts.requests).toBe(3)
      expect(done).toHaveLength(3)
    })
  )

  it.scoped("a record starts when the start gate lets it: while few in progress hold no request slot", () =>
    Effect.gen(function* () {
      const dispatcher = yield* makeDispatcher(settings({ maxConcurrency: 4 }), counting().stats)
      const release = yield* Deferred.make<void>()
      let started = 0
      // Records that hold no request slot (as if preparing): 4 (the threshold) start, the fifth waits.
      const records = yield* Effect.fork(
        Effect.forEach(
          Array.from({ length: 5 }),
          () =>
            dispatcher.record(
              Effect.zipRight(
                Effect.sync(() => void started++),
                Deferred.await(release)
              )
            ),
          { concurrency: "unbounded", discard: true }
        )
      )
      yield* TestClock.adjust(Duration.millis(1))
      expect(started).toBe(4)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(records)
      expect(started).toBe(5)
    })
  )

  it.effect("once its scope is closed (or it is stopped) nothing more is sent", () =>
    Effect.gen(function* () {
      const { counts, stats } = counting()
      const scope = yield* Scope.make()
      const dispatcher = yield* Scope.extend(makeDispatcher(settings({ stop: Effect.never }), stats), scope)
      yield* dispatcher.send("m", Effect.void)
      yield* Scope.close(scope, Exit.void)
      const late = yield* Effect.fork(dispatcher.send("m", Effect.void))
      yield* TestClock.adjust(Duration.minutes(1))
      expect(late.unsafePoll()).toBeNull()
      expect(counts.requests).toBe(1)
      yield* Fiber.interrupt(late)
    })
  )
})
