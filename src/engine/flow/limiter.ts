/**
 * Per-model limiter: requests per minute (evenly paced: one start every 60/rpm s, so the service's
 * own bucket never drains), a concurrency cap, and pauses of every worker of the model
 * (Retry-After, 503). Two ways to meet a 429:
 * - a configured rpm: the concurrency cap halves and grows back by one per window of successes
 *   (AIMD on concurrency), every worker pauses for the Retry-After, and the burst is dropped (the
 *   service's bucket is smaller than one second's worth): starts are evenly paced from then on;
 * - no rpm (`discover`): the rate itself is learnt (rate-discovery.ts: AIMD on the rate, from the
 *   accepted rate the service allowed); the cap stays, since halving it would cut throughput when
 *   answers are slow while doing nothing the paced rate does not do better. A short Retry-After
 *   delays only the rejected request; a long one pauses every worker.
 * With a shared bucket (a cluster's, shared-bucket.ts) the starts come from it instead of this
 * GCRA or rate discovery (shared-pacer.ts): 429s and the learnt rate are the bucket's, for every
 * worker; the concurrency cap and its AIMD stay local.
 * All timing goes through Effect's Clock, so tests drive it with TestClock.
 */
import { Clock, Duration, Effect, Either } from "effect"
import {
  defaultRateDiscovery,
  type DiscoveredRate,
  makeRateDiscovery,
  type RateDiscoverySettings
} from "./rate-discovery.ts"
import type { SharedBucket } from "./shared-bucket.ts"
import { makeRatePacer } from "./rate-pacer.ts"
import { makeSharedPacer } from "./shared-pacer.ts"
import { makeWaitLine } from "./wait-line.ts"

export interface LimiterSettings {
  /** Requests per minute; undefined = no rate limit (the concurrency cap still applies). */
  readonly rpm?: number | undefined
  /** Most requests in flight; the AIMD cap starts here and never exceeds it. */
  readonly maxConcurrency: number
  /** With no rpm: learn the rate from the 429s met (the engine's default when no rpm is set). */
  readonly discover?: boolean | Partial<RateDiscoverySettings> | undefined
  /** Called when a slot is taken or handed on (the start gate's cue, start-gate.ts). */
  readonly onSlotsChange?: (() => void) | undefined
  /** Starts from a bucket shared with other workers (the rpm, or discovery's settings, go with each lease). */
  readonly shared?: SharedBucket | undefined
}

export interface LimiterState {
  readonly cap: number
  readonly inFlight: number
  readonly pausedUntil: number
}

export const makeLimiter = (settings: LimiterSettings) =>
  Effect.sync(() => {
    const max = Math.max(1, settings.maxConcurrency)
    const pinned = settings.rpm !== undefined && settings.rpm > 0
    const interval = pinned ? 60_000 / settings.rpm! : 0
    // The bucket's depth beyond one start, as time: (burst − 1) intervals. The burst is one second's
    // worth less 100 ms' worth: the service's bucket (one second's worth, as the emulator's) is then
    // never drained to its last token, so requests arriving a little bunched are not refused.
    const perSecond = pinned ? settings.rpm! / 60 : 0
    const burst = Math.max(1, Math.floor(perSecond) - Math.max(1, Math.round(perSecond / 10)))
    // A 429 at the configured rate says the service's bucket is smaller than that: no burst from then on.
    let burstSlack = pinned ? (burst - 1) * interval : 0
    const shared =
      settings.shared === undefined
        ? undefined
        : makeSharedPacer(settings.shared, {
            rpm: pinned ? settings.rpm : undefined,
            discovery: typeof settings.discover === "object" ? settings.discover : undefined
          })
    const discovery =
      shared === undefined && !pinned && settings.discover !== undefined && settings.discover !== false
        ? makeRateDiscovery(settings.discover === true ? {} : settings.discover)
        : undefined
    // The clock's time at the last event (for reporting the discovered rate without a clock).
    let lastEventAt = 0
    let cap = max
    let inFlight = 0
    // GCRA's theoretical arrival time: when the bucket would be full again (a configured rate).
    let tat = Number.NEGATIVE_INFINITY
    // Starts drawn but not yet due, and the pause epoch they were drawn in: a pause gives their
    // tokens back, so the bucket is full, not pledged ahead, when the pause ends.
    let waiting = 0
    let epoch = 0
    let pausedUntil = 0
    // Workers waiting for a slot, oldest first; a released slot is handed to the first one.
    const line = makeWaitLine()
    // Discovering: starts paced to the learnt rate, only the head of the line holding a start time.
    const discoverySettings = {
      ...defaultRateDiscovery,
      ...(typeof settings.discover === "object" ? settings.discover : {})
    }
    const ratePacer =
      discovery === undefined
        ? undefined
        : makeRatePacer({
            intervalMs: discovery.intervalMs,
            notBefore: () => pausedUntil,
            slackMs: () => discoverySettings.slackMs,
            initialBurst: discoverySettings.initialBurst
          })

    // Slow start's answer credits left (rate-discovery.ts): spent while probing, one per success.
    let answerCredits = discoverySettings.initialBurst

    /** Hands free slots (under the current cap) to waiting workers, oldest first. */
    const grantNow = () => {
      line.handOn(
        () => inFlight < Math.floor(cap),
        () => void inFlight++
      )
      settings.onSlotsChange?.()
    }
    const grant = Effect.sync(grantNow)

    const releaseSlotNow = () => {
      inFlight--
      grantNow()
    }
    const releaseSlot: Effect.Effect<void> = Effect.sync(releaseSlotNow)

    /** Takes a slot, waiting in line when the cap is reached (interrupted just as one was handed over: given back). */
    const takeSlot: Effect.Effect<void> = Effect.suspend(() => {
      if (line.size() === 0 && inFlight < Math.floor(cap)) {
        inFlight++
        settings.onSlotsChange?.()
        return Effect.void
      }
      return line.wait(releaseSlotNow)
    })

    /**
     * Waits out any pause, then for this request's start time under the rate; gives the time the
     * start was granted. Discovering, the rate pacer does both (a change of rate moves its head).
     */
    const localPace: Effect.Effect<number> = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      // No pause and no pacing: no generator, once per request.
      now >= pausedUntil && interval === 0 ? Effect.succeed(now) : paced
    )
    // Chosen once: the local path has no extra step per request.
    const pace = shared !== undefined ? shared.pace : ratePacer !== undefined ? ratePacer.pace : localPace
    const paced: Effect.Effect<number> = Effect.gen(function* () {
      while (true) {
        let now = yield* Clock.currentTimeMillis
        while (now < pausedUntil) {
          yield* Effect.sleep(Duration.millis(pausedUntil - now))
          now = yield* Clock.currentTimeMillis
        }
        if (interval === 0) return now
        // A token bucket: start now while tokens are left, else when the next one drips in. It
        // starts empty: the first second is paced evenly, so the service's bucket, full at the
        // start, keeps its depth as margin; only time lost later (a pause) is made up by a burst.
        if (tat === Number.NEGATIVE_INFINITY) tat = now + burstSlack
        const at = Math.max(now, tat - burstSlack)
        tat = Math.max(tat, at) + interval
        if (at <= now) return now
        const drawnIn = epoch
        waiting++
        yield* Effect.sleep(Duration.millis(at - now)).pipe(
          Effect.onExit((exit) =>
            Effect.sync(() => {
              if (epoch !== drawnIn) return
              waiting--
              if (exit._tag === "Failure") tat -= interval // interrupted: the token goes back
            })
          )
        )
        // A pause began meanwhile: its token was given back; wait the pause out and draw again.
        if (epoch === drawnIn) return at
      }
    })

    /**
     * acquireUseRelease for a release that cannot fail, once per request: the slot is taken
     * uninterruptibly, the pacing and the call run interruptibly, and the slot is given back
     * however they end (an interruption is passed on after it).
     */
    const runTimed = <A, E, R>(
      effect: Effect.Effect<A, E, R>
    ): Effect.Effect<{ readonly result: Either.Either<A, E>; readonly startedAt: number }, never, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(
          takeSlot,
          Effect.flatMap(
            Effect.exit(
              restore(
                Effect.flatMap(pace, (startedAt) =>
                  Effect.map(Effect.either(effect), (result) => ({ result, startedAt }))
                )
              )
            ),
            (exit) => Effect.zipRight(releaseSlot, exit)
          )
        )
      )

    return {
      /** Runs `effect` as one request of this model: slot, pause, pace, then the call. */
      run: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        Effect.acquireUseRelease(
          takeSlot,
          () => Effect.zipRight(pace, effect),
          () => releaseSlot
        ),
      /** Runs `effect` as one request; gives its result and the time it started (after pacing). */
      runTimed,
      /**
       * A 429 for a request started at `startedAt`. With a configured rate: halve the cap and pause
       * every worker for Retry-After. Discovering: lower the rate; a long Retry-After pauses every
       * worker, a short one is returned for the rejected request alone to wait.
       */
      onRateLimited: (
        retryAfter: Duration.Duration | undefined,
        startedAt?: number
      ): Effect.Effect<Duration.Duration | undefined> =>
        Effect.gen(function* () {
          if (shared !== undefined) {
            if (pinned) cap = Math.max(1, cap / 2)
            return yield* shared.onRateLimited(retryAfter, startedAt ?? (yield* Clock.currentTimeMillis))
          }
          if (discovery !== undefined) {
            const now = (lastEventAt = yield* Clock.currentTimeMillis)
            // A decrease: the next start is one (longer) interval away, however late the last was.
            if (discovery.onRateLimited(now, startedAt ?? now)) ratePacer!.restart(now)
            if (retryAfter === undefined) return undefined
            if (discovery.pausesAll(Duration.toMillis(retryAfter))) {
              yield* pauseFor(retryAfter)
              return undefined
            }
            return retryAfter
          }
          cap = Math.max(1, cap / 2)
          if (burstSlack > 0) {
            burstSlack = 0
            tat = Math.max(tat, (yield* Clock.currentTimeMillis) + interval)
          }
          if (retryAfter !== undefined) yield* pauseFor(retryAfter)
          return undefined
        }),
      /** A success: additive increase of the cap (about +1 per `cap` successes), or of the learnt rate. */
      onSuccess: (startedAt?: number): Effect.Effect<void> => {
        if (shared !== undefined && !pinned) return Effect.sync(shared.onSuccess)
        const local =
          discovery !== undefined
            ? Effect.map(Clock.currentTimeMillis, (now) => {
                lastEventAt = now
                discovery.onSuccess(now, startedAt ?? now)
                // Probing: an answer earns one more start at once, while credits last.
                if (answerCredits > 0 && discovery.probing()) {
                  answerCredits--
                  ratePacer!.credit()
                }
                // Probing raised the rate: the head of the line starts sooner.
                ratePacer!.repace(now)
              })
            : Effect.suspend(() => {
                const before = Math.floor(cap)
                cap = Math.min(max, cap + 1 / Math.max(1, cap))
                return Math.floor(cap) > before ? grant : Effect.void
              })
        // A pinned rate's successes are told to the shared bucket too: the cluster's answered rate (status).
        return shared === undefined ? local : Effect.zipRight(Effect.sync(shared.onSuccess), local)
      },
      /** With no rpm configured: the rate learnt so far (undefined when a rate is configured). */
      discovered: (): DiscoveredRate | undefined =>
        shared !== undefined ? shared.discovered() : discovery?.state(lastEventAt),
      /** Pauses every worker of the model (503 maintenance, Retry-After). */
      pauseFor: (d: Duration.Duration) => (shared !== undefined ? shared.pauseFor(d) : pauseFor(d)),
      state: Effect.sync((): LimiterState => ({
        cap,
        inFlight,
        pausedUntil: shared !== undefined ? shared.pausedUntil() : pausedUntil
      })),
      /** Requests holding a slot now. */
      slotsHeld: (): number => inFlight
    }

    function pauseFor(d: Duration.Duration) {
      return Clock.currentTimeMillis.pipe(
        Effect.map((now) => {
          const until = now + Duration.toMillis(d)
          if (until <= pausedUntil) return
          pausedUntil = until
          ratePacer?.restart(now)
          tat -= waiting * interval
          waiting = 0
          epoch++
        })
      )
    }
  })

export type Limiter = Effect.Effect.Success<ReturnType<typeof makeLimiter>>
