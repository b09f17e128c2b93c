/**
 * When a record may start: while few records in progress are without a request slot. A record
 * started while every slot is taken only waits in the limiter's line, holding its worker and its
 * prepared requests; with the default 256 records for 32 slots that was ~220 records parked at
 * any time. Measured through the CLI (docs/performance.md): peak RSS −5 MB and a few
 * percent of CPU on a cold run, within that machine's noise.
 *
 * The gate counts records in progress (passed it, not yet finished) against the requests holding
 * a slot, over every limiter. Records without a slot (in line, waiting out a backoff, waiting for
 * the same text in flight, being prepared) stay under `threshold`: enough to hand a slot on at
 * once when one frees. Up to `limits.records` still start whenever that holds, e.g. when a record
 * takes several slots or its later stage uses another model.
 *
 * Liveness: a worker waits only while `threshold` (≥ 1) records in progress hold no slot; each of
 * them finishes in time (a line moves as slots free, a backoff ends, a text in flight is answered),
 * and every finish and every slot taken or handed on calls `notify`.
 */
import { Effect } from "effect"
import { makeWaitLine } from "./wait-line.ts"

export interface StartGate {
  /** Completes when a record may start (counting it as in progress): at once while few are without a slot. */
  readonly wait: Effect.Effect<void>
  /** A record that passed `wait` is finished (or was never started: the pool's end marker). */
  readonly finished: () => void
  /** Slots were taken or handed on: lets waiting records start if there is room. */
  readonly notify: () => void
  /** Opens for good (a stop: workers must reach their end markers). */
  readonly open: () => void
}

/**
 * `slotsHeld()`: requests holding a slot now, over every limiter; `threshold`: records in progress
 * without a slot under which records start. A notify lets as many start as there is room for.
 */
export const makeStartGate = (slotsHeld: () => number, threshold: number): StartGate => {
  let opened = false
  let inProgress = 0
  // Workers waiting to start a record, oldest first.
  const line = makeWaitLine()

  const room = () => threshold - (inProgress - slotsHeld())

  const notify = () => {
    if (line.size() === 0) return
    let count = opened ? Number.POSITIVE_INFINITY : room()
    line.handOn(
      () => count > 0,
      () => {
        count--
        inProgress++
      }
    )
  }

  const finished = () => {
    inProgress--
    notify()
  }

  // Interrupted just as it was let through: the start it was handed is given back.
  const wait: Effect.Effect<void> = Effect.suspend(() => {
    if (opened || (line.size() === 0 && room() > 0)) {
      inProgress++
      return Effect.void
    }
    return line.wait(finished)
  })

  return {
    wait,
    finished,
    notify,
    open: () => {
      opened = true
      notify()
    }
  }
}

/** Records in progress without a slot under which more start, for a concurrency cap: a quarter of the slots, at least 4. */
export const startThreshold = (maxConcurrency: number): number => Math.max(4, Math.ceil(maxConcurrency / 4))
