/** Queues bounded in bytes as well as in items: the worker pool and the gate under it. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Stream, TestClock } from "effect"
import { approximateBytes, makeByteGate } from "../../../src/engine/flow/byte-gate.ts"
import { runPool } from "../../../src/engine/flow/worker-pool.ts"

describe("byte-bounded queues", () => {
  it.effect(
    "the worker pool keeps the bytes of items queued or in progress within maxBytes (one oversized item passes alone)",
    () =>
      Effect.gen(function* () {
        let inProgress = 0
        let peak = 0
        const sizes = [60, 30, 60, 500, 10, 10, 10]
        const done: Array<number> = []
        const fiber = yield* Effect.fork(
          runPool({
            items: Stream.fromIterable(sizes.map((bytes, i) => ({ i, bytes }))),
            workers: 4,
            sizeOf: (item) => item.bytes,
            maxBytes: 100,
            process: (item) =>
              Effect.gen(function* () {
                inProgress += item.bytes
                peak = Math.max(peak, item.bytes > 100 ? 0 : inProgress)
                yield* Effect.sleep(Duration.millis(10))
                inProgress -= item.bytes
                done.push(item.i)
              }),
            stop: Effect.never,
            grace: Duration.seconds(1)
          })
        )
        yield* TestClock.adjust(Duration.seconds(1))
        yield* Fiber.join(fiber)
        expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5, 6])
        expect(peak).toBeLessThanOrEqual(100)
        expect(peak).toBeGreaterThan(0)
      })
  )

  it.effect("a gate admits while under its limit, holds a producer over it until bytes are released", () =>
    Effect.gen(function* () {
      const gate = makeByteGate(100)
      yield* gate.admit(70)
      const second = yield* Effect.fork(gate.admit(50))
      yield* TestClock.adjust(Duration.millis(1))
      expect(gate.queued()).toBe(70)
      gate.release(70)
      yield* Fiber.join(second)
      expect(gate.queued()).toBe(50)
      expect(approximateBytes({ text: "abcd", n: 1 })).toBe(16 + 8 + 8 + 2 + 8)
    })
  )
})
