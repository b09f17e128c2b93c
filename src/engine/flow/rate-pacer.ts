/**
 * Starts paced at a rate that changes while requests wait for them (rate discovery's). Only the
 * head of the line holds a start time; the others wait in line behind it. So a change of rate
 * moves one sleeper, not every start already promised: each of 32 workers reserving a start at
 * the initial 10/s spread the first 32 starts over 3.2 s however fast probing found the service
 * accepting (issue 29). An increase wakes the head early, a decrease or a pause wakes it to sleep
 * longer.
 *
 * - `slackMs`: time lost (a timer woken late, a busy event loop) is made up by starting at once,
 *   up to this much of it: under CPU starvation the pace is kept, not lost, yet after idle time
 *   the burst stays small.
 * - `initialBurst`: the first starts go out at once; then, while probing, each of the first as many
 *   answers lets one more go at once (`credit`: slow start, rate-discovery.ts). So a 20-record
 *   job is not paced at all (issue 29: its last ten, paced, cost ~0.3 s of a ~1 s run), and a
 *   service that does not answer is sent no more.
 *
 * All timing goes through Effect's Clock (TestClock in tests).
 */
import { Clock, Duration, Effect } from "effect"
import { makeWaitLine } from "./wait-line.ts"

export interface RatePacerSettings {
  /** Milliseconds between starts at the rate now. */
  readonly intervalMs: (now: number) => number
  /** No start before this time (a pause), ms on the clock. */
  readonly notBefore: () => number
  /** Lost time made up at most, ms. */
  readonly slackMs: (now: number) => number
  /** Starts at once before pacing begins. */
  readonly initialBurst: number
}

export interface RatePacer {
  /** Waits for this request's start; gives its time. */
  readonly pace: Effect.Effect<number>
  /** The rate rose (or a pause ended): the head starts earlier if it now may. */
  readonly repace: (now: number) => void
  /** The rate fell or a pause began: the next start is one interval from `now` (nothing made up). */
  readonly restart: (now: number) => void
  /** One more start at once (an answer while probing); a restart takes back those not used. */
  readonly credit: () => void
}

export const makeRatePacer = (settings: RatePacerSettings): RatePacer => {
  // The schedule: the last start granted (its due time, which may be before it went out).
  let last = Number.NEGATIVE_INFINITY
  let burst = settings.initialBurst
  let headTaken = false
  // While the head sleeps: when it is due, and how to wake it.
  let sleepingUntil = Number.POSITIVE_INFINITY
  let wake: (() => void) | undefined
  const line = makeWaitLine()

  const dueAt = (now: number) => Math.max(settings.notBefore(), last + settings.intervalMs(now))

  /** The head role passes to the oldest waiter (or is free). */
  const passOn = () => {
    headTaken = false
    line.handOn(
      () => !headTaken,
      () => void (headTaken = true)
    )
  }

  /** Sleeps `ms`, or less if woken. */
  const sleepOrWake = (ms: number) =>
    Effect.raceFirst(
      Effect.sleep(Duration.millis(ms)),
      Effect.async<void>((resume) => {
        wake = () => {
          wake = undefined
          resume(Effect.void)
        }
        return Effect.sync(() => void (wake = undefined))
      })
    ).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          wake = undefined
          sleepingUntil = Number.POSITIVE_INFINITY
        })
      )
    )

  const asHead: Effect.Effect<number> = Effect.gen(function* () {
    while (true) {
      const now = yield* Clock.currentTimeMillis
      if (burst > 0 && now >= settings.notBefore()) {
        burst--
        last = now
        return now
      }
      const due = dueAt(now)
      if (due <= now) {
        last = Math.max(due, now - settings.slackMs(now))
        return now
      }
      sleepingUntil = due
      // Whole milliseconds, as the clock counts: a sliver left by rounding would loop forever.
      yield* sleepOrWake(Math.ceil(due - now))
    }
  }).pipe(Effect.ensuring(Effect.sync(passOn)))

  const pace: Effect.Effect<number> = Effect.suspend(() => {
    if (!headTaken && line.size() === 0) {
      headTaken = true
      return asHead
    }
    // Handed the head role and interrupted before resuming: it passes on.
    return Effect.zipRight(line.wait(passOn), asHead)
  })

  return {
    pace,
    repace: (now) => {
      if (wake !== undefined && dueAt(now) < sleepingUntil - 0.5) wake()
    },
    restart: (now) => {
      last = Math.max(last, now)
      burst = 0
      wake?.()
    },
    credit: () => {
      burst++
      wake?.()
    }
  }
}
