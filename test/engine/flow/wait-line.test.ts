/** The wait line under the limiter and the start gate: oldest first, interrupted waiters skipped. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { makeWaitLine } from "../../../src/engine/flow/wait-line.ts"

describe("wait line", () => {
  it.effect(
    "hands on oldest first while `more` holds, passes over a waiter interrupted in line, and counts only live waiters",
    () =>
      Effect.gen(function* () {
        const line = makeWaitLine()
        const resumed: Array<string> = []
        const fibers = []
        for (const name of ["a", "b", "c", "d"]) {
          fibers.push(
            yield* Effect.fork(
              Effect.zipRight(
                line.wait(() => {}),
                Effect.sync(() => void resumed.push(name))
              )
            )
          )
          yield* Effect.yieldNow()
        }
        expect(line.size()).toBe(4)
        yield* Fiber.interrupt(fibers[1]!)
        expect(line.size()).toBe(3)
        let slots = 2
        const taken: Array<number> = []
        line.handOn(
          () => slots > 0,
          () => void taken.push(slots--)
        )
        for (const f of [fibers[0]!, fibers[2]!]) yield* Fiber.join(f)
        expect(resumed).toEqual(["a", "c"])
        expect(taken).toEqual([2, 1])
        expect(line.size()).toBe(1)
        line.handOn(
          () => true,
          () => {}
        )
        yield* Fiber.join(fibers[3]!)
        expect(resumed).toEqual(["a", "c", "d"])
        expect(line.size()).toBe(0)
      })
  )
})
