/**
 * What to do after a failed attempt (the engine's policy, from the client's typed errors):
 * - 429: a delay, not a spent attempt (the limiter shrinks and pauses);
 * - 401: abort the whole job (every other request would fail too);
 * - 503 with Retry-After: pause every worker of the model for it, then retry (a spent attempt);
 * - 503 without Retry-After: back off this request only (one busy instance must not idle the
 *   other workers; the limiter's burst makes up any lost time within the limit);
 * - 500, transport, timeout, cut stream, invalid structured output: backoff with jitter, retry;
 * - 400, 404, 413, anything else: the record fails with the service's message.
 */
import { Data, Duration, Effect, Option, Random } from "effect"
import type { Outage } from "../../service/errors.ts"
import type { Limiter } from "./limiter.ts"

export class JobAborted extends Data.TaggedError("JobAborted")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/** A request that failed for good; the record fails with this. */
export class RequestFailed extends Data.TaggedError("RequestFailed")<{
  readonly detail: string
  readonly attempts: number
  /** The client's error of the last attempt: its fields (`systemic`, `outage`) decide, not its class name. */
  readonly cause: ErrorLike
}> {
  /** The failure's name in the record's outcome (the rejects file, the report): the cause's. */
  get status(): string {
    return this.cause._tag
  }
  /** A cause no record can fix: the circuit breaker counts it. */
  get systemic(): boolean {
    return this.cause.systemic === true
  }
  override get message() {
    return `${this.status}: ${this.detail} (after ${this.attempts} attempt${this.attempts === 1 ? "" : "s"})`
  }
}

export type Classification =
  | { readonly _tag: "RateLimited"; readonly retryAfter: Duration.Duration | undefined }
  | { readonly _tag: "Unavailable"; readonly retryAfter: Duration.Duration | undefined }
  | { readonly _tag: "Transient" }
  | { readonly _tag: "Permanent" }
  | { readonly _tag: "Abort" }

/** What the policy reads of a client's error: its fields, never its class name (`_tag` only names it). */
export interface ErrorLike {
  readonly _tag: string
  readonly message: string
  readonly retryable?: boolean
  readonly status?: number
  readonly retryAfter?: Option.Option<Duration.Duration>
  readonly systemic?: boolean
  readonly outage?: Outage
  readonly rateLimited?: boolean
  readonly abortsJob?: boolean
  readonly unavailable?: boolean
}

export const classify = (error: ErrorLike): Classification => {
  const after = error.retryAfter !== undefined ? Option.getOrUndefined(error.retryAfter) : undefined
  // The error's own fields decide, not its class name.
  if (error.rateLimited === true) return { _tag: "RateLimited", retryAfter: after }
  if (error.abortsJob === true) return { _tag: "Abort" }
  if (error.unavailable === true) return { _tag: "Unavailable", retryAfter: after }
  return error.retryable === true ? { _tag: "Transient" } : { _tag: "Permanent" }
}

export interface RetryPolicy {
  /** Attempts per request, counting the first (429s do not count). */
  readonly maxAttempts: number
  readonly baseDelay: Duration.Duration
  readonly maxDelay: Duration.Duration
  /** 429s tolerated for one request before it fails (a guard against a limit set far too high). */
  readonly max429: number
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  baseDelay: Duration.millis(500),
  maxDelay: Duration.seconds(30),
  max429: 200
}

/** Exponential backoff with "equal jitter": half fixed, half random. */
export const backoff = (policy: RetryPolicy, attempt: number) =>
  Effect.gen(function* () {
    const ceiling = Math.min(
      Duration.toMillis(policy.maxDelay),
      Duration.toMillis(policy.baseDelay) * 2 ** Math.max(0, attempt - 1)
    )
    const r = yield* Random.next
    return Duration.millis(ceiling / 2 + r * (ceiling / 2))
  })

export interface RetryEvents {
  readonly onRetry: () => void
  readonly on429: () => void
}

/**
 * Runs `attempt` under `limiter` with the policy above. A first attempt that succeeds (nearly
 * every request) takes no generator: this runs once per request.
 */
export const withRetry = <A, E extends ErrorLike, R>(
  limiter: Limiter,
  policy: RetryPolicy,
  events: RetryEvents,
  attempt: Effect.Effect<A, E, R>
): Effect.Effect<A, RequestFailed | JobAborted, R> =>
  Effect.flatMap(limiter.runTimed(attempt), ({ result, startedAt }) =>
    result._tag === "Right"
      ? Effect.as(limiter.onSuccess(startedAt), result.right)
      : retryAfterFailure(limiter, policy, events, attempt, result.left, startedAt)
  )

/** The attempts after a failed first one. */
const retryAfterFailure = <A, E extends ErrorLike, R>(
  limiter: Limiter,
  policy: RetryPolicy,
  events: RetryEvents,
  attempt: Effect.Effect<A, E, R>,
  firstError: E,
  firstStartedAt: number
): Effect.Effect<A, RequestFailed | JobAborted, R> =>
  Effect.gen(function* () {
    let attempts = 0
    let rateLimited = 0
    let next: { readonly error: E; readonly startedAt: number } | undefined = {
      error: firstError,
      startedAt: firstStartedAt
    }
    while (true) {
      if (next === undefined) {
        const { result, startedAt } = yield* limiter.runTimed(attempt)
        if (result._tag === "Right") {
          yield* limiter.onSuccess(startedAt)
          return result.right
        }
        next = { error: result.left, startedAt }
      }
      const { error, startedAt } = next
      next = undefined
      const c = classify(error)
      switch (c._tag) {
        case "Abort":
          return yield* Effect.fail(new JobAborted({ reason: error.message }))
        case "Permanent":
          return yield* Effect.fail(new RequestFailed({ detail: error.message, attempts: attempts + 1, cause: error }))
        case "RateLimited": {
          events.on429()
          rateLimited++
          if (rateLimited > policy.max429) {
            return yield* Effect.fail(
              new RequestFailed({
                detail: `${error.message}; gave up after ${rateLimited} 429s`,
                attempts: attempts + 1,
                cause: error
              })
            )
          }
          // The limiter pauses every worker, or leaves this request alone to wait the Retry-After.
          const ownWait = yield* limiter.onRateLimited(c.retryAfter, startedAt)
          if (ownWait !== undefined) yield* Effect.sleep(ownWait)
          // Without Retry-After, wait a backoff step before asking again.
          else if (c.retryAfter === undefined) yield* Effect.sleep(yield* backoff(policy, Math.min(rateLimited, 6)))
          continue
        }
        case "Unavailable":
        case "Transient": {
          attempts++
          if (attempts >= policy.maxAttempts) {
            return yield* Effect.fail(new RequestFailed({ detail: error.message, attempts, cause: error }))
          }
          events.onRetry()
          if (c._tag === "Unavailable" && c.retryAfter !== undefined) yield* limiter.pauseFor(c.retryAfter)
          else yield* Effect.sleep(yield* backoff(policy, attempts))
        }
      }
    }
  })
