/** The start gate: records start while the limiters' lines are short, not to wait in them. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Stream, TestClock } from "effect"
import { makeLimiter } from "../../../src/engine/flow/limiter.ts"
import { makeStartGate } from "../../../src/engine/flow/start-gate.ts"
import { runPool } from "../../../src/engine/flow/worker-pool.ts"

describe("start gate", () => {
  /** 20 items through 10 workers, each one request through a limiter of 2 slots: the peak of records in progress without a slot. */
  const poolOverLimiter = (gated: boolean) =>
    Effect.gen(function* () {
      let inProgress = 0
      let peakParked = 0
      const gate = makeStartGate(() => limiter.slotsHeld(), 2)
      const limiter = yield* makeLimiter({ maxConcurrency: 2, onSlotsChange: gate.notify })
      const done: Array<number> = []
      const fiber = yield* Effect.fork(
        runPool({
          items: Stream.range(0, 19),
          workers: 10,
          process: (i) =>
            Effect.suspend(() => {
              inProgress++
              peakParked = Math.max(peakParked, inProgress - limiter.slotsHeld())
              return limiter.run(
                Effect.zipRight(
                  Effect.sleep(Duration.millis(10)),
                  Effect.sync(() => void done.push(i))
                )
              )
            }).pipe(Effect.ensuring(Effect.sync(() => void inProgress--))),
          stop: Effect.never,
          grace: Duration.seconds(1),
          ...(gated ? { gate } : {})
        })
      )
      yield* TestClock.adjust(Duration.seconds(1))
      yield* Fiber.join(fiber)
      return { peakParked, done: done.sort((a, b) => a - b) }
    })

  it.effect("with the gate, records beyond the slots do not pile up waiting for one, and every one is done", () =>
    Effect.gen(function* () {
      const gated = yield* poolOverLimiter(true)
      expect(gated.done).toEqual(Array.from({ length: 20 }, (_, i) => i))
      expect(gated.peakParked).toBeLessThanOrEqual(2)
      // Without it, every idle worker takes a record and waits in line: 10 workers, 2 slots.
      const ungated = yield* poolOverLimiter(false)
      expect(ungated.done).toEqual(gated.done)
      expect(ungated.peakParked).toBe(8)
    })
  )

  it.effect(
    "a notify lets as many start as there is room for; a finish makes room; one interrupted while waiting is passed over",
    () =>
      Effect.gen(function* () {
        let slots = 0
        const gate = makeStartGate(() => slots, 2)
        // Two start at once (no slot held yet: room for 2), the next wait.
        yield* gate.wait
        yield* gate.wait
        const started: Array<string> = []
        const fibers = []
        for (const name of ["a", "b", "c", "d"]) {
          fibers.push(
            yield* Effect.fork(
              Effect.zipRight(
                gate.wait,
                Effect.sync(() => void started.push(name))
              )
            )
          )
          yield* Effect.yieldNow()
        }
        gate.notify()
        yield* Effect.yieldNow()
        expect(started).toEqual([])
        yield* Fiber.interrupt(fibers[0]!)
        // Both took a slot: room for two more.
        slots = 2
        gate.notify()
        yield* Effect.yieldNow()
        expect(started).toEqual(["b", "c"])
        // b and c hold no slot yet: no room until one finishes.
        gate.notify()
        yield* Effect.yieldNow()
        expect(started).toEqual(["b", "c"])
        gate.finished()
        yield* Fiber.join(fibers[3]!)
        expect(started).toEqual(["b", "c", "d"])
        // Open for good: no wait however many are in progress.
        gate.open()
        for (let i = 0; i < 10; i++) yield* gate.wait
      })
  )

  it.effect(
    "a stop opens the gate: idle workers reach their end markers and the pool ends without waiting out the grace",
    () =>
      Effect.gen(function* () {
        // Nothing will call notify: only the stop can open it.
        const gate = makeStartGate(() => 0, 2)
        // Two in progress with no slot (say, waiting out a backoff): the gate is closed.
        yield* gate.wait
        yield* gate.wait
        const started: Array<number> = []
        const fiber = yield* Effect.fork(
          runPool({
            items: Stream.range(0, 4),
            workers: 3,
            process: (i) => Effect.sync(() => void started.push(i)),
            gate,
            stop: Effect.sleep(Duration.seconds(1)).pipe(Effect.tap(() => gate.open())),
            grace: Duration.minutes(10)
          })
        )
        yield* TestClock.adjust(Duration.seconds(1))
        const result = yield* Fiber.join(fiber)
        expect(result.stopped).toBe(true)
        // Queued records are not started after a stop.
        expect(started).toEqual([])
      })
  )
})
