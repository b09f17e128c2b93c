/** The request budget: N attempts pass, the next waits; spent and drained complete when they should. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { makeRequestBudget } from "../../../src/engine/flow/request-budget.ts"

describe("request budget", () => {
  it.effect("lets N attempts through, holds the next; drained once the allowed ones are answered", () =>
    Effect.gen(function* () {
      const budget = yield* makeRequestBudget(2)
      const gate = yield* Deferred.make<void>()
      let sent = 0
      const attempt = Effect.zipRight(
        Effect.sync(() => void sent++),
        Deferred.await(gate)
      )
      const a = yield* Effect.fork(budget.around(attempt))
      const b = yield* Effect.fork(budget.around(attempt))
      const c = yield* Effect.fork(budget.around(attempt))
      yield* Effect.yieldNow()
      expect(sent).toBe(2)
      const spent = yield* Effect.fork(budget.spent)
      const drained = yield* Effect.fork(budget.drained)
      yield* Effect.yieldNow()
      expect(spent.unsafePoll()).not.toBeNull()
      expect(drained.unsafePoll()).toBeNull()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(a)
      yield* Fiber.join(b)
      yield* Fiber.join(drained)
      expect(c.unsafePoll()).toBeNull() // the third never goes out
      expect(sent).toBe(2)
      yield* Fiber.interrupt(c)
    })
  )
})

describe("stopping", () => {
  it.effect("after halt nothing new is sent; drained once the requests already sent are answered", () =>
    Effect.gen(function* () {
      const budget = yield* makeRequestBudget(undefined)
      const gate = yield* Deferred.make<void>()
      let sent = 0
      const attempt = Effect.zipRight(
        Effect.sync(() => void sent++),
        Deferred.await(gate)
      )
      const inFlight = yield* Effect.fork(budget.around(attempt))
      yield* Effect.yieldNow()
      yield* budget.halt
      const late = yield* Effect.fork(budget.around(attempt))
      const drained = yield* Effect.fork(budget.drained)
      yield* Effect.yieldNow()
      expect(sent).toBe(1)
      expect(drained.unsafePoll()).toBeNull()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(inFlight)
      yield* Fiber.join(drained)
      expect(late.unsafePoll()).toBeNull()
      expect(sent).toBe(1)
      yield* Fiber.interrupt(late)
    })
  )
})
