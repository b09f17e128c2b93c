/** The rate pacer: only the head of the line holds a start time, so a change of rate moves it. */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, TestClock } from "effect"
import { makeRatePacer } from "../../../src/engine/flow/rate-pacer.ts"

/** A pacer at `rate()` per second; `starts` collects the times starts were granted. */
const pacerAt = (
  rate: () => number,
  options: { slackMs?: number; initialBurst?: number; pausedUntil?: () => number } = {}
) =>
  makeRatePacer({
    intervalMs: () => 1000 / rate(),
    notBefore: options.pausedUntil ?? (() => 0),
    slackMs: () => options.slackMs ?? 0,
    initialBurst: options.initialBurst ?? 0
  })

const startAll = (pace: Effect.Effect<number>, n: number, starts: Array<number>) =>
  Effect.fork(
    Effect.forEach(Array.from({ length: n }), () => Effect.map(pace, (t) => void starts.push(t)), {
      concurrency: "unbounded",
      discard: true
    })
  )

describe("rate pacer", () => {
  it.effect("an increase re-paces the starts waiting: the head starts at the new interval", () =>
    Effect.gen(function* () {
      let rate = 10
      const pacer = pacerAt(() => rate)
      const starts: Array<number> = []
      yield* startAll(pacer.pace, 32, starts)
      yield* TestClock.adjust(Duration.millis(1))
      expect(starts).toEqual([0]) // the next is due at 100 ms at 10/s
      rate = 1000
      pacer.repace(yield* Clock.currentTimeMillis)
      yield* TestClock.adjust(Duration.millis(40))
      // At 1,000/s the other 31 start 1 ms apart, not 100 ms apart as they were reserved.
      expect(starts).toHaveLength(32)
      expect(starts[31]).toBeLessThanOrEqual(32)
    })
  )

  it.effect("a decrease re-paces the head: the next start is one new interval after it", () =>
    Effect.gen(function* () {
      let rate = 100
      const pacer = pacerAt(() => rate)
      const starts: Array<number> = []
      yield* startAll(pacer.pace, 3, starts)
      yield* TestClock.adjust(Duration.millis(5))
      rate = 10
      pacer.restart(yield* Clock.currentTimeMillis)
      yield* TestClock.adjust(Duration.millis(300))
      expect(starts).toEqual([0, 105, 205])
    })
  )

  it.effect("the initial burst goes out at once, then starts are paced", () =>
    Effect.gen(function* () {
      const pacer = pacerAt(() => 10, { initialBurst: 5 })
      const starts: Array<number> = []
      yield* startAll(pacer.pace, 7, starts)
      yield* TestClock.adjust(Duration.millis(250))
      expect(starts).toEqual([0, 0, 0, 0, 0, 100, 200])
    })
  )

  it.effect("a credit lets one more start go at once, waking the head; a restart takes back the unused ones", () =>
    Effect.gen(function* () {
      const pacer = pacerAt(() => 1, { initialBurst: 1 })
      const starts: Array<number> = []
      yield* startAll(pacer.pace, 3, starts)
      yield* TestClock.adjust(Duration.millis(10))
      pacer.credit()
      yield* TestClock.adjust(Duration.millis(10))
      expect(starts).toEqual([0, 10]) // the third waits for its interval (1 s after the last start)
      pacer.credit()
      yield* TestClock.adjust(Duration.millis(10))
      expect(starts).toEqual([0, 10, 20])
      pacer.credit()
      pacer.restart(yield* Clock.currentTimeMillis)
      yield* startAll(pacer.pace, 1, starts)
      yield* TestClock.adjust(Duration.millis(999))
      expect(starts).toEqual([0, 10, 20])
      yield* TestClock.adjust(Duration.millis(1))
      expect(starts).toEqual([0, 10, 20, 1030])
    })
  )

  it.effect("time lost to a late start is made up within the slack, no more", () =>
    Effect.gen(function* () {
      const pacer = pacerAt(() => 100, { slackMs: 30 })
      const starts: Array<number> = []
      yield* pacer.pace // 0: the schedule starts here
      yield* TestClock.adjust(Duration.millis(100)) // nobody asked for 100 ms (a starved loop)
      const fiber = yield* startAll(pacer.pace, 6, starts)
      yield* TestClock.adjust(Duration.millis(30))
      yield* Fiber.join(fiber)
      // 30 ms of the lost 100 made up: four start at once (the due one and three of the slack).
      expect(starts).toEqual([100, 100, 100, 100, 110, 120])
    })
  )

  it.effect("the head interrupted while it waits hands its place on", () =>
    Effect.gen(function* () {
      const pacer = pacerAt(() => 10)
      yield* pacer.pace
      const head = yield* Effect.fork(pacer.pace)
      const starts: Array<number> = []
      yield* startAll(pacer.pace, 1, starts)
      yield* TestClock.adjust(Duration.millis(10))
      yield* Fiber.interrupt(head)
      yield* TestClock.adjust(Duration.millis(100))
      expect(starts).toEqual([100])
    })
  )

  it.effect("a pause holds the head until it ends", () =>
    Effect.gen(function* () {
      let pausedUntil = 0
      const pacer = pacerAt(() => 100, { pausedUntil: () => pausedUntil })
      yield* pacer.pace
      const starts: Array<number> = []
      yield* startAll(pacer.pace, 2, starts)
      pausedUntil = 500
      pacer.restart(0)
      yield* TestClock.adjust(Duration.millis(600))
      expect(starts).toEqual([500, 510])
    })
  )
})
