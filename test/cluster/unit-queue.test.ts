/**
 * Starting the unit queue: PostgreSQL's transient conflicts (a deadlock between processes setting
 * pg-boss up at once, a serialization failure) are tried again; any other failure is not.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { retryConflicts } from "../../src/cluster/unit-queue.ts"

/** Fails with each of `codes` in turn (PostgreSQL's SQLSTATE, as pg reports it), then succeeds. */
const failingWith = (codes: ReadonlyArray<string>) => {
  let attempts = 0
  const effect = Effect.suspend(() => {
    const code = codes[attempts++]
    return code === undefined ? Effect.succeed("started") : Effect.fail({ code, message: `error ${code}` })
  })
  return { effect, attempts: () => attempts }
}

describe("unit queue start", () => {
  it.live("a deadlock or a serialization failure is tried again until it starts", () =>
    Effect.gen(function* () {
      const start = failingWith(["40P01", "40001", "40P01"])
      expect(yield* retryConflicts(start.effect)).toBe("started")
      expect(start.attempts()).toBe(4)
    })
  )

  it.live("any other failure ends the start at once", () =>
    Effect.gen(function* () {
      const start = failingWith(["28P01"])
      const exit = yield* Effect.exit(retryConflicts(start.effect))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(start.attempts()).toBe(1)
    })
  )
})
