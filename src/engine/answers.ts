/**
 * Answers for a run: the ledger first (a text already answered costs nothing), then requests in
 * flight (the same text asked twice at once is sent once), then the service through the model's
 * limiter and the retry policy. New answers go to the ledger's writer; until it commits them they
 * are served from memory.
 */
import { Deferred, Effect } from "effect"
import { TextService } from "../service/client.ts"
import type { LedgerService } from "../ledger/ledger.ts"
import { contentKey } from "./content-key.ts"
import type { Counters } from "./counters.ts"
import { type Limiter, makeLimiter } from "./limiter.ts"
import { JobAborted, RequestFailed, type RetryPolicy, withRetry } from "./retry.ts"
import type { StageRequest } from "./stage.ts"

export type CacheMode = "read-write" | "refresh" | "off"

export interface AnswerSettings {
  readonly cache: CacheMode
  readonly rpm: Readonly<Record<string, number>>
  readonly maxConcurrency: number
  readonly retry: RetryPolicy
}

/** `since`: answers older than this (ms) are not reused (refresh mode passes the run's start). */
export const makeAnswers = (ledger: LedgerService, counters: Counters, settings: AnswerSettings, since: number) =>
  Effect.gen(function* () {
    const service = yield* TextService
    const limiters = new Map<string, Limiter>()
    const inflight = new Map<string, Deferred.Deferred<unknown, RequestFailed | JobAborted>>()
    const events = { onRetry: () => void counters.retries++, on429: () => void counters.rateLimited++ }

    const limiterFor = (model: string) =>
      Effect.suspend(() => {
        const existing = limiters.get(model)
        if (existing) return Effect.succeed(existing)
        return makeLimiter({ rpm: settings.rpm[model] ?? settings.rpm["*"], maxConcurrency: settings.maxConcurrency }).pipe(
          Effect.tap((l) => Effect.sync(() => limiters.set(model, l)))
        )
      })

    const ask = (request: StageRequest, key: string) =>
      Effect.gen(function* () {
        const limiter = yield* limiterFor(request.model)
        const attempt = Effect.zipRight(
          Effect.sync(() => void counters.requests++),
          request.send(service)
        )
        const stored = yield* withRetry(limiter, settings.retry, events, attempt)
        counters.tokens += stored.tokens
        if (settings.cache !== "off") {
          yield* ledger.write({
            _tag: "Answer",
            key,
            endpoint: request.endpoint,
            model: request.model,
            answer: JSON.stringify(stored.value),
            tokens: stored.tokens
          })
        }
        return stored.value
      })

    return (request: StageRequest): Effect.Effect<unknown, RequestFailed | JobAborted> =>
      Effect.suspend(() => {
        const key = contentKey(request)
        if (settings.cache !== "off") {
          const stored = ledger.answer(key, settings.cache === "refresh" ? since : 0)
          if (stored !== undefined) {
            counters.cacheHits++
            return Effect.succeed(JSON.parse(stored) as unknown)
          }
        }
        const running = inflight.get(key)
        if (running) {
          counters.cacheHits++
          return Deferred.await(running)
        }
        return Effect.gen(function* () {
          const d = yield* Deferred.make<unknown, RequestFailed | JobAborted>()
          inflight.set(key, d)
          return yield* ask(request, key).pipe(
            Effect.exit,
            Effect.tap((exit) => Deferred.done(d, exit)),
            Effect.ensuring(Effect.sync(() => inflight.delete(key))),
            Effect.flatten
          )
        }).pipe(
          // An interrupted asker must not leave waiters hanging.
          Effect.onInterrupt(() =>
            Effect.suspend(() => {
              const d = inflight.get(key)
              inflight.delete(key)
              return d ? Deferred.interrupt(d) : Effect.void
            })
          )
        )
      })
  })
