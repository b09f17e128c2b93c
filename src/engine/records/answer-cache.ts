/**
 * The answer cache of a run: the ledger first (a text already answered costs nothing), then
 * requests in flight (the same text asked twice at once is sent once), then the service through
 * the run's dispatcher (the flow: limits, retries, breaker, budget). New answers go to the ledger's
 * writer; until it commits them they are served from its memory.
 */
import { Deferred, Effect, FiberId, Option } from "effect"
import { sha256Key } from "../../pipeline/content-key.ts"
import { TextService } from "../../service/client.ts"
import { decodeAnswer } from "../../ledger/answer-codec.ts"
import { type AnswerRef, isStoredAsBlob } from "../../ledger/stored.ts"
import type { LedgerService } from "../../ledger/ledger.ts"
import { type Dispatcher, JobAborted, type RequestFailed } from "../flow/dispatcher.ts"
import type { RunStats } from "../run-stats.ts"
import type { StageRequest } from "../../pipeline/stage.ts"

export type CacheMode = "read-write" | "refresh" | "off"

export interface AnswerSettings {
  /**
   * Where answers come from ("emulator" or the service's base URL). Stored answers are keyed by it
   * too, so an emulated answer is never served as the service's, nor the reverse.
   */
  readonly origin?: string | undefined
  readonly cache: CacheMode
}

/** `key`: the request's stored key (`keyOf`), computed once by the fold and handed with it. */
export type Ask = (request: StageRequest, key: string) => Effect.Effect<unknown, RequestFailed | JobAborted>

/** The key an answer is stored under: the request's content key, bound to the answers' origin. */
export const originKey = (origin: string | undefined, contentKey: string): string =>
  origin === undefined ? contentKey : sha256Key(origin, contentKey)

/** `since`: answers older than this (ms) are not reused (refresh mode passes the run's start). */
export const makeAnswerCache = (
  ledger: LedgerService,
  stats: RunStats,
  settings: AnswerSettings,
  since: number,
  dispatcher: Dispatcher
) =>
  Effect.gen(function* () {
    const service = yield* TextService
    const inflight = new Map<string, InFlight>()

    // Hashed once per request: the fold keeps the keys with the prepared stage and hands them to `ask`.
    const keyOf = (request: StageRequest) =>
      settings.origin === undefined ? request.key : originKey(settings.origin, request.key)

    // Pipes, not a generator: this runs once per request.
    const send = (request: StageRequest, key: string) =>
      Effect.flatMap(dispatcher.send(request.model, request.send(service)), (answered) => {
        stats.tokens(answered.tokens)
        if (settings.cache === "off") return Effect.succeed(answered.value)
        // The ledger cannot keep answers (disk full, …): every further answer would be paid for and lost.
        return ledger
          .putAnswer(
            { key, endpoint: request.endpoint, model: request.model, tokens: answered.tokens },
            request.answer,
            answered.value
          )
          .pipe(
            Effect.mapError((e) => new JobAborted({ reason: e.message })),
            Effect.map(() => {
              remember(key, answered.value)
              return answered.value
            })
          )
      })

    // A request in flight; the Deferred its later askers wait on is made only when one comes.
    interface InFlight {
      waiters: Deferred.Deferred<unknown, RequestFailed | JobAborted> | undefined
    }
    const waitFor = (running: InFlight) => Deferred.await((running.waiters ??= Deferred.unsafeMake(FiberId.none)))

    const sendOnce = (request: StageRequest, key: string) =>
      Effect.suspend(() => {
        const entry: InFlight = { waiters: undefined }
        inflight.set(key, entry)
        // Also when the asker is interrupted: waiters must not hang.
        return Effect.onExit(send(request, key), (exit) =>
          Effect.suspend(() => {
            if (inflight.get(key) === entry) inflight.delete(key)
            return entry.waiters === undefined ? Effect.void : Deferred.done(entry.waiters, exit)
          })
        )
      })

    // Answers read ahead for a window of records (one query per window, decoded once), and the
    // window before it (its last records may still be queued for the workers). A key read and not
    // found is asked of the service without another lookup; its answer, once received, is kept
    // with the window for the window's other records with the same text.
    interface Window {
      readonly known: Map<string, unknown>
      readonly missing: Set<string>
      /** Keys whose answers are stored in bytes, not read: for records that only refer to them. */
      readonly present: Set<string>
    }
    const emptyWindow = (): Window => ({ known: new Map(), missing: new Set(), present: new Set() })
    let current = emptyWindow()
    let previous = emptyWindow()
    const remember = (key: string, value: unknown) => {
      for (const w of [current, previous]) if (w.missing.delete(key)) w.known.set(key, value)
    }
    const sinceFor = settings.cache === "refresh" ? since : 0
    /** The window's stored answers of requests `at` (indices into `requests`), read and decoded. */
    const readInto = (
      next: Window,
      requests: ReadonlyArray<StageRequest>,
      keys: ReadonlyArray<string>,
      at: ReadonlyArray<number> | undefined
    ): Effect.Effect<void> => {
      const asked = at === undefined ? keys : at.map((i) => keys[i]!)
      if (asked.length === 0) return Effect.void
      return Effect.map(ledger.answersFor(asked, sinceFor), (found) => {
        for (let j = 0; j < asked.length; j++) {
          const key = asked[j]!
          if (next.known.has(key) || next.missing.has(key)) continue
          const stored = found[j]
          // An answer stored in another shape (an older version of the stage) is not reused.
          const value =
            stored === undefined ? Option.none() : decodeAnswer(stored, requests[at === undefined ? j : at[j]!]!.answer)
          if (Option.isSome(value)) next.known.set(key, value.value)
          else next.missing.add(key)
        }
      })
    }
    /**
     * Reads the stored answers of these requests in one query; later asks for them cost nothing.
     * Gives each request's key, in order: the window looks its records up by position, so a key is
     * hashed once and not looked up again (a warm rerun's records never ask). `refersOnly[i]`: the
     * record only refers to request i's answer (`StageFold.refersOnly`); one stored in bytes (a
     * vector) is then looked up, not read.
     */
    const prefetch = (
      requests: ReadonlyArray<StageRequest>,
      refersOnly?: ReadonlyArray<boolean>
    ): Effect.Effect<ReadonlyArray<string>> => {
      const keys = requests.map(keyOf)
      if (settings.cache === "off" || requests.length === 0) return Effect.succeed(keys)
      const byPresence: Array<number> = []
      const byValue: Array<number> = []
      if (refersOnly !== undefined)
        for (let i = 0; i < requests.length; i++)
          (refersOnly[i] === true && isStoredAsBlob(requests[i]!.answer) ? byPresence : byValue).push(i)
      const next = emptyWindow()
      const done = Effect.sync(() => {
        previous = current
        current = next
        return keys
      })
      if (byPresence.length === 0) return Effect.zipRight(readInto(next, requests, keys, undefined), done)
      const looked = byPresence.map((i) => keys[i]!)
      return Effect.flatMap(ledger.inBytes(looked, sinceFor), (inBytes) => {
        for (let j = 0; j < looked.length; j++) (inBytes[j] === true ? next.present : next.missing).add(looked[j]!)
        return Effect.zipRight(readInto(next, requests, keys, byValue), done)
      })
    }
    /**
     * Whether the answers of `keys[from]` up to (not including) `keys[to]` were all read ahead (or,
     * for a record that only refers to them, `refersOnly`, found present).
     */
    const allKnown = (keys: ReadonlyArray<string>, from: number, to: number, refersOnly = false): boolean => {
      for (let i = from; i < to; i++) {
        const key = keys[i]!
        if (!current.known.has(key) && !(refersOnly && current.present.has(key))) return false
      }
      return true
    }
    /**
     * The answers of keys all read ahead (`allKnown`), counted as cache hits; an answer found present
     * and not read is given as the reference to it (only a record that refers to it gets one).
     */
    const knownAnswers = (keys: ReadonlyArray<string>, from: number, to: number): Array<unknown> => {
      const out = new Array<unknown>(to - from)
      for (let i = from; i < to; i++) {
        stats.cacheHit()
        const key = keys[i]!
        out[i - from] = current.known.has(key) ? current.known.get(key) : ({ $answer: key } satisfies AnswerRef)
      }
      return out
    }
    // The hot path of a warm rerun: no generator, a stored answer returned synchronously.
    const ask: Ask = (request, key) => {
      const window = current.known.has(key) || current.missing.has(key) ? current : previous
      if (window.known.has(key)) {
        stats.cacheHit()
        return Effect.succeed(window.known.get(key))
      }
      const fresh = () => {
        const running = inflight.get(key)
        if (running) {
          stats.cacheHit()
          return waitFor(running)
        }
        return sendOnce(request, key)
      }
      if (settings.cache === "off" || window.missing.has(key)) return Effect.suspend(fresh)
      return Effect.flatMap(ledger.answer(key, request.answer, settings.cache === "refresh" ? since : 0), (stored) => {
        if (Option.isNone(stored)) return fresh()
        stats.cacheHit()
        return Effect.succeed(stored.value)
      })
    }
    return { ask, keyOf, prefetch, allKnown, knownAnswers }
  })
