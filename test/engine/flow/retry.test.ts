/** Retry classification and the retry loop under TestClock. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, TestClock } from "effect"
import { makeLimiter } from "../../../src/engine/flow/limiter.ts"
import { classify, defaultRetryPolicy, withRetry } from "../../../src/engine/flow/retry.ts"
import {
  BadRequestError,
  IncompleteStreamError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  ResponseDecodeError,
  ServerError,
  TimeoutError,
  TransportError,
  UnauthorizedError
} from "../../../src/service/errors.ts"

const endpoint = "chat" as const
const rateLimited = (after?: number) =>
  new RateLimitedError({
    endpoint,
    serviceMessage: "slow down",
    retryAfter: after === undefined ? Option.none() : Option.some(Duration.seconds(after))
  })
const server = (status: number) =>
  new ServerError({ endpoint, status, serviceMessage: "oops", retryAfter: Option.none() })

describe("classify", () => {
  it("maps every error to what the engine does", () => {
    expect(classify(rateLimited(2))).toEqual({ _tag: "RateLimited", retryAfter: Duration.seconds(2) })
    expect(classify(new UnauthorizedError({ endpoint, serviceMessage: "" }))._tag).toBe("Abort")
    expect(classify(server(503))._tag).toBe("Unavailable")
    for (const e of [
      server(500),
      server(502),
      new TransportError({ endpoint, detail: "reset" }),
      new TimeoutError({ endpoint, after: Duration.seconds(1) }),
      new IncompleteStreamError({ endpoint, detail: "cut", chunksReceived: 2 })
    ]) {
      expect(classify(e)._tag, e._tag).toBe("Transient")
    }
    for (const e of [
      new BadRequestError({ endpoint, serviceMessage: "" }),
      new NotFoundError({ endpoint, serviceMessage: "" }),
      new PayloadTooLargeError({ endpoint, serviceMessage: "" }),
      new InvalidRequestError({ endpoint, field: "n", limit: "1-5" }),
      new ResponseDecodeError({ endpoint, detail: "" })
    ]) {
      expect(classify(e)._tag, e._tag).toBe("Permanent")
    }
  })

  it("reads the error's fields, not its class name", () => {
    const named = (fields: object) => ({ _tag: "SomeRenamedError", message: "x", ...fields })
    expect(classify(named({ rateLimited: true, retryAfter: Option.some(Duration.seconds(3)) }))).toEqual({
      _tag: "RateLimited",
      retryAfter: Duration.seconds(3)
    })
    expect(classify(named({ abortsJob: true }))._tag).toBe("Abort")
    expect(classify(named({ unavailable: true, retryAfter: Option.none() }))._tag).toBe("Unavailable")
    expect(classify(named({ retryable: true }))._tag).toBe("Transient")
  })
})

describe("withRetry", () => {
  const events = () => {
    const e = { retries: 0, r429: 0 }
    return { e, hooks: { onRetry: () => void e.retries++, on429: () => void e.r429++ } }
  }
  /** An attempt that fails with `errors` in turn, then succeeds. */
  const scripted = (errors: ReadonlyArray<{ _tag: string; message: string }>) => {
    let calls = 0
    return {
      calls: () => calls,
      attempt: Effect.suspend(() => {
        const e = errors[calls++]
        return e ? Effect.fail(e as ServerError) : Effect.succeed("ok")
      })
    }
  }

  it.effect("retries transient errors with backoff, up to maxAttempts", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 1 })
      const { e, hooks } = events()
      const s = scripted([server(500), new TransportError({ endpoint, detail: "reset" })])
      const fiber = yield* Effect.fork(withRetry(limiter, defaultRetryPolicy, hooks, s.attempt))
      yield* TestClock.adjust(Duration.minutes(1))
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(s.calls()).toBe(3)
      expect(e.retries).toBe(2)

      const never = scripted(Array(10).fill(server(500)))
      const failing = yield* Effect.fork(
        Effect.flip(withRetry(limiter, { ...defaultRetryPolicy, maxAttempts: 3 }, hooks, never.attempt))
      )
      yield* TestClock.adjust(Duration.minutes(1))
      const error = yield* Fiber.join(failing)
      expect(error._tag).toBe("RequestFailed")
      expect(never.calls()).toBe(3)
      if (error._tag === "RequestFailed") expect(error.attempts).toBe(3)
    })
  )

  it.effect("never retries 400-class errors", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 1 })
      const s = scripted([new BadRequestError({ endpoint, serviceMessage: "max_completion_tokens above 8000" })])
      const error = yield* Effect.flip(withRetry(limiter, defaultRetryPolicy, events().hooks, s.attempt))
      expect(error._tag).toBe("RequestFailed")
      expect(error.message).toContain("max_completion_tokens above 8000")
      expect(s.calls()).toBe(1)
    })
  )

  it.effect("a request failed for good keeps the client's error as its cause; its status names it", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 1 })
      const notFound = new NotFoundError({ endpoint, serviceMessage: "no such route" })
      const error = yield* Effect.flip(
        withRetry(limiter, defaultRetryPolicy, events().hooks, scripted([notFound]).attempt)
      )
      if (error._tag !== "RequestFailed") throw new Error(`expected RequestFailed, got ${error._tag}`)
      expect(error.cause).toBe(notFound)
      expect(error.status).toBe("NotFoundError")
      expect(error.systemic).toBe(true)
    })
  )

  it.effect("a 429 is a delay, not a spent attempt, and honours Retry-After", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 4 })
      const { e, hooks } = events()
      const s = scripted([rateLimited(3), rateLimited(3), rateLimited(3), rateLimited(3)])
      const fiber = yield* Effect.fork(withRetry(limiter, { ...defaultRetryPolicy, maxAttempts: 2 }, hooks, s.attempt))
      yield* TestClock.adjust(Duration.millis(2900))
      expect(s.calls()).toBe(1) // waiting out Retry-After: 3 s
      yield* TestClock.adjust(Duration.seconds(30))
      expect(yield* Fiber.join(fiber)).toBe("ok") // four 429s with maxAttempts 2 still succeed
      expect(e.r429).toBe(4)
      expect(e.retries).toBe(0)
      expect((yield* limiter.state).cap).toBeLessThan(4)
    })
  )

  it.effect("a 503 without Retry-After backs off that request alone; the model's other workers go on", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 4 })
      const failing = scripted([server(503)])
      const fiber = yield* Effect.fork(withRetry(limiter, defaultRetryPolicy, events().hooks, failing.attempt))
      yield* TestClock.adjust(Duration.millis(1))
      expect(failing.calls()).toBe(1)
      expect((yield* limiter.state).pausedUntil).toBe(0)
      // Another request of the same model starts at once, while the failed one waits its backoff.
      const other = yield* Effect.fork(limiter.runTimed(Effect.void))
      yield* TestClock.adjust(Duration.millis(1))
      const { startedAt } = yield* Fiber.join(other)
      expect(startedAt).toBeLessThanOrEqual(2)
      yield* TestClock.adjust(Duration.minutes(1))
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(failing.calls()).toBe(2)
    })
  )

  it.effect("a 503 with Retry-After pauses the model; a 401 aborts at once", () =>
    Effect.gen(function* () {
      const limiter = yield* makeLimiter({ maxConcurrency: 4 })
      const s = scripted([
        new ServerError({
          endpoint,
          status: 503,
          serviceMessage: "maintenance",
          retryAfter: Option.some(Duration.seconds(5))
        })
      ])
      const fiber = yield* Effect.fork(withRetry(limiter, defaultRetryPolicy, events().hooks, s.attempt))
      yield* TestClock.adjust(Duration.millis(100))
      expect((yield* limiter.state).pausedUntil).toBeGreaterThan(0)
      yield* TestClock.adjust(Duration.minutes(1))
      expect(yield* Fiber.join(fiber)).toBe("ok")

      const abort = scripted([new UnauthorizedError({ endpoint, serviceMessage: "bad key" })])
      const error = yield* Effect.flip(withRetry(limiter, defaultRetryPolicy, events().hooks, abort.attempt))
      expect(error._tag).toBe("JobAborted")
      expect(abort.calls()).toBe(1)
    })
  )
})
