/**
 * The flow of a run in one value: built once per run from its flow settings, it composes this
 * room's pieces — per model a limiter (rate, concurrency, 429 feedback, rate discovery), retry with
 * backoff, the circuit breaker, the request budget; for records, the start gate and the worker pool
 * with its byte gate. The processing pass and the in-memory run use only this: `send` for a
 * request, `record` or `records` for records, `stop`. Closed with its scope: nothing is sent after.
 */
import { Duration, Effect, type Scope, type Stream } from "effect"
import { approximateBytes } from "./byte-gate.ts"
import { makeCircuitBreaker } from "./circuit-breaker.ts"
import { type Limiter, makeLimiter } from "./limiter.ts"
import type { DiscoveredRate, RateDiscoverySettings } from "./rate-discovery.ts"
import { makeRequestBudget } from "./request-budget.ts"
import type { SharedRate } from "./shared-bucket.ts"
import { type ErrorLike, JobAborted, RequestFailed, type RetryPolicy, withRetry } from "./retry.ts"
import { makeStartGate, startThreshold } from "./start-gate.ts"
import { runPool } from "./worker-pool.ts"

export { defaultRetryPolicy, JobAborted, RequestFailed, type RetryPolicy } from "./retry.ts"

/** Bytes of records queued for or held by the workers (beside their count, the workers). */
const MAX_QUEUED_BYTES = 64 * 1024 * 1024

export interface FlowSettings {
  /** Requests per minute by model (`*` for the rest); a model with none learns its rate from 429s. */
  readonly rpm: Readonly<Record<string, number>>
  /** Most requests in flight per model. */
  readonly maxConcurrency: number
  readonly retry: RetryPolicy
  /** Requests failing in a row, for a cause no retry can fix, that abort the run (default 10). */
  readonly breakerThreshold?: number | undefined
  /** The service's base URL, named by the breaker when answers are not the API's. */
  readonly baseUrl?: string | undefined
  /** Attempts this invocation may send (`--max-requests`); reaching it stops the run as a stop does. */
  readonly maxRequests?: number | undefined
  /** Records in progress at once: the workers of `records` (default 256). */
  readonly recordConcurrency?: number | undefined
  /** Completes when the user asks to stop (none: only the budget stops a run). */
  readonly stop?: Effect.Effect<void> | undefined
  /** How long records in progress may take to finish after a stop (default 30 s). */
  readonly grace?: Duration.Duration | undefined
  /** Rate discovery's settings, for models without an rpm (tests; default: rate-discovery.ts's). */
  readonly discovery?: Partial<RateDiscoverySettings> | undefined
  /**
   * A rate shared with every worker of a cluster (src/cluster/shared-rate.ts, opened once from the
   * PostgreSQL URL): each model's starts come from its (baseUrl, model) bucket, so `rpm` is the
   * whole cluster's rate and a 429 anywhere slows every worker. None: each run paces itself.
   */
  readonly sharedRate?: SharedRate | undefined
}

/** What the flow counts in the run's statistics (RunStats). */
export interface FlowStats {
  /** An attempt went out. */
  request(): void
  /** A failed attempt is retried. */
  retry(): void
  /** An attempt was answered 429. */
  rateLimited(): void
  /** A model without an rpm learns its rate: read it with every snapshot. */
  watchRate(model: string, read: () => DiscoveredRate | undefined): void
}

export interface RecordsOptions<A, E, R, E2, R2> {
  readonly items: Stream.Stream<A, E, R>
  readonly process: (item: A) => Effect.Effect<void, E2, R2>
  /** What an item holds (its size approximated): items queued or in progress stay within 64 MiB. */
  readonly holds?: (item: A) => unknown
}

export interface RecordsResult {
  /** A stop (the user's, or the request budget's) ended them before the items' end. */
  readonly stopped: boolean
  /** The stop was the request budget's. */
  readonly budgetSpent: boolean
}

export interface Dispatcher {
  /**
   * One request for `model` (`attempt` is one try of it) with the whole policy: the budget, the
   * model's limiter, retries, the circuit breaker. Fails with the request's failure for good, or
   * JobAborted (401, the breaker open).
   */
  readonly send: <A, E extends ErrorLike, R>(
    model: string,
    attempt: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, RequestFailed | JobAborted, R>
  /** One record's work, as a record in progress: it starts when the start gate lets it. */
  readonly record: <A, E, R>(work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Every item through `process` on the workers (each a record in progress), until the items end or
   * a stop: then nothing new is sent, records sent get the grace period, queued ones wait for the
   * next run.
   */
  readonly records: <A, E, R, E2, R2>(
    options: RecordsOptions<A, E, R, E2, R2>
  ) => Effect.Effect<RecordsResult, E | E2, R | R2>
  /** Nothing new is sent from now on; records waiting to start go on (to reach their end). */
  readonly stop: Effect.Effect<void>
  /** Requests holding a slot now, over every model. */
  readonly slotsHeld: () => number
}

export const makeDispatcher = (
  settings: FlowSettings,
  stats: FlowStats
): Effect.Effect<Dispatcher, never, Scope.Scope> =>
  Effect.gen(function* () {
    const limiters = new Map<string, Limiter>()
    const events = { onRetry: () => stats.retry(), on429: () => stats.rateLimited() }
    const breaker = makeCircuitBreaker(settings.breakerThreshold, settings.baseUrl)
    // Only a run that can stop needs a budget: with neither a limit nor a stop, nothing to count.
    const budget =
      settings.maxRequests !== undefined || settings.stop !== undefined
        ? yield* makeRequestBudget(settings.maxRequests)
        : undefined
    const slotsHeld = () => {
      let n = 0
      for (const l of limiters.values()) n += l.slotsHeld()
      return n
    }
    // Records start while few in progress are without a request slot (start-gate.ts).
    const startGate = makeStartGate(slotsHeld, startThreshold(settings.maxConcurrency))
    const stop = Effect.zipRight(
      budget === undefined ? Effect.void : budget.halt,
      Effect.sync(() => startGate.open())
    )
    yield* Effect.addFinalizer(() => stop)

    const limiterFor = (model: string): Effect.Effect<Limiter> =>
      Effect.suspend(() => {
        const existing = limiters.get(model)
        if (existing) return Effect.succeed(existing)
        const rpm = settings.rpm[model] ?? settings.rpm["*"]
        // No rpm configured (the spec publishes none): the limiter learns one from the 429s met.
        return makeLimiter({
          rpm,
          maxConcurrency: settings.maxConcurrency,
          discover: rpm === undefined && (settings.discovery ?? true),
          onSlotsChange: startGate.notify,
          shared: settings.sharedRate?.bucket(settings.baseUrl ?? "", model)
        }).pipe(
          Effect.tap((l) =>
            Effect.sync(() => {
              limiters.set(model, l)
              if (rpm === undefined) stats.watchRate(model, l.discovered)
            })
          )
        )
      })

    const countRequest = Effect.sync(() => stats.request())
    // The breaker counts what fails for good; a systemic streak aborts the run.
    const breakerFailed = (e: RequestFailed | JobAborted) => {
      if (!(e instanceof RequestFailed)) return Effect.void
      const reason = breaker.failed(e)
      return reason === undefined ? Effect.void : Effect.fail(new JobAborted({ reason }))
    }
    // Pipes, not a generator: this runs once per request.
    const send = <A, E extends ErrorLike, R>(model: string, attempt: Effect.Effect<A, E, R>) =>
      Effect.flatMap(limiterFor(model), (limiter) => {
        const counted = Effect.zipRight(countRequest, attempt)
        return withRetry(limiter, settings.retry, events, budget === undefined ? counted : budget.around(counted)).pipe(
          Effect.tapError(breakerFailed),
          Effect.map((a) => {
            breaker.succeeded()
            return a
          })
        )
      })

    const recordFinished = Effect.sync(() => startGate.finished())
    const record = <A, E, R>(work: Effect.Effect<A, E, R>) =>
      Effect.zipRight(startGate.wait, Effect.ensuring(work, recordFinished))

    const records = <A, E, R, E2, R2>(options: RecordsOptions<A, E, R, E2, R2>) =>
      Effect.gen(function* () {
        let budgetSpent = false
        const userStop = settings.stop ?? Effect.never
        const holds = options.holds
        const pass = yield* runPool({
          items: options.items,
          workers: settings.recordConcurrency ?? 256,
          process: options.process,
          ...(holds === undefined
            ? {}
            : { sizeOf: (item: A) => approximateBytes(holds(item)), maxBytes: MAX_QUEUED_BYTES }),
          gate: startGate,
          // After a stop nothing new is sent; what was sent is answered and kept, then the run ends
          // (the start gate opens, so idle workers reach their end markers).
          stop: Effect.zipRight(
            budget === undefined
              ? userStop
              : Effect.raceFirst(
                  userStop,
                  Effect.tap(budget.spent, () => void (budgetSpent = true))
                ),
            stop
          ),
          grace: settings.grace ?? Duration.seconds(30),
          ...(budget === undefined ? {} : { drained: budget.drained })
        })
        return { stopped: pass.stopped, budgetSpent }
      })

    return { send, record, records, stop, slotsHeld }
  })
