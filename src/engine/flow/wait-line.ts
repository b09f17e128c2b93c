/**
 * A first-in-first-out line of waiting fibers, shared by the limiter (a request waiting for a
 * slot) and the start gate (a worker waiting to start a record). A waiter is the callback that
 * resumes its fiber, not a Deferred each: with records queued behind the cap, every request waits
 * in one, and a Deferred per wait doubled the engine's CPU per record. The line is an array read
 * from an index (not shift(): hundreds may wait); a waiter interrupted in line leaves a hole.
 */
import { Effect } from "effect"

export interface WaitLine {
  /** Waiters in line now (holes left by interrupted ones not counted). */
  readonly size: () => number
  /**
   * Waits until handed on. Interrupted in line, it leaves; interrupted just after being handed
   * on (before its fiber resumed), `giveBack` returns what it was handed.
   */
  readonly wait: (giveBack: () => void) => Effect.Effect<void>
  /** Hands on to the oldest waiters while `more()` holds; `take()` runs for each before it resumes. */
  readonly handOn: (more: () => boolean, take: () => void) => void
}

export const makeWaitLine = (): WaitLine => {
  let waiters: Array<(() => void) | undefined> = []
  let head = 0
  let live = 0

  const handOn = (more: () => boolean, take: () => void) => {
    while (head < waiters.length) {
      const next = waiters[head]
      if (next === undefined) {
        head++
        continue
      }
      if (!more()) break
      waiters[head++] = undefined
      live--
      take()
      next()
    }
    if (head === waiters.length) {
      waiters = []
      head = 0
    } else if (head > 1024 && head * 2 > waiters.length) {
      waiters = waiters.slice(head)
      head = 0
    }
  }

  const wait = (giveBack: () => void): Effect.Effect<void> =>
    Effect.async<void>((resume) => {
      let handed = false
      const waiter = () => {
        handed = true
        resume(Effect.void)
      }
      waiters.push(waiter)
      live++
      return Effect.sync(() => {
        if (handed) return giveBack()
        const i = waiters.indexOf(waiter, head)
        if (i >= 0) {
          waiters[i] = undefined
          live--
        }
      })
    })

  return { size: () => live, wait, handOn }
}
