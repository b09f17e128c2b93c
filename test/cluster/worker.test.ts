/**
 * The worker's loop against a board and a queue kept in memory: a unit given to another worker
 * while this one was silent is stopped here as soon as a heartbeat finds it gone, and neither
 * settled nor given back (its pg-boss job is the other worker's now).
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect } from "effect"
import type { UnitBoard } from "../../src/cluster/unit-board.ts"
import type { UnitPayload } from "../../src/cluster/unit-payload.ts"
import type { UnitQueue } from "../../src/cluster/unit-queue.ts"
import { runWorker, type UnitEnd } from "../../src/cluster/worker.ts"

const payload: UnitPayload = {
  runId: 1,
  index: 0,
  jobFile: "/jobs/j.yaml",
  overrides: {},
  input: "/data/in.jsonl",
  format: "jsonl",
  fingerprint: "f",
  unit: { start: 0, end: 10, firstOrdinal: 0, firstLine: 1, rows: 1 },
  startedAt: 0,
  retryFailed: false,
  retryLimit: 3,
  heartbeatMs: 10
}

/** A board and a queue holding one unit; `calls` lists what the worker did to them after taking it. */
const fakes = (heartbeatKept: () => boolean) => {
  const calls: Array<string> = []
  let handed = false
  const queue = {
    fetch: Effect.sync(() => {
      if (handed) return undefined
      handed = true
      return { id: "job-1", data: payload }
    }),
    complete: (id: string) => Effect.sync(() => void calls.push(`complete ${id}`)),
    fail: (id: string) => Effect.sync(() => void calls.push(`fail ${id}`)),
    send: () => Effect.sync(() => (calls.push("send"), "job-2"))
  } as unknown as UnitQueue // only what the worker uses
  const board = {
    taken: () => Effect.succeed(1),
    heartbeat: () => Effect.sync(heartbeatKept),
    settle: (_r: number, _i: number, state: string) => Effect.sync(() => void calls.push(`settle ${state}`)),
    queued: () => Effect.sync(() => void calls.push("queued"))
  } as unknown as UnitBoard // only what the worker uses
  return { calls, queue, board }
}

describe("worker", () => {
  it.live("a unit given to another while this worker was silent: stopped at the next heartbeat, left alone", () =>
    Effect.gen(function* () {
      const { calls, queue, board } = fakes(() => false)
      const stop = yield* Deferred.make<void>()
      let sawLost = false
      yield* runWorker({
        board,
        queue,
        concurrency: 1,
        stop: Deferred.await(stop),
        pollMs: 10,
        // The processing pass stops when told (as processUnit does on its stop): here, when the unit is lost.
        work: (_p, _progress, lost) =>
          Effect.gen(function* () {
            yield* lost
            sawLost = true
            yield* Deferred.succeed(stop, undefined)
            return { _tag: "Stopped" } as UnitEnd
          })
      })
      expect(sawLost).toBe(true)
      expect(calls).toEqual([])
    })
  )

  it.live("a unit still this worker's at every heartbeat is worked to its end and settled done", () =>
    Effect.gen(function* () {
      const { calls, queue, board } = fakes(() => true)
      const stop = yield* Deferred.make<void>()
      yield* runWorker({
        board,
        queue,
        concurrency: 1,
        stop: Deferred.await(stop),
        pollMs: 10,
        work: (_p, _progress, lost) =>
          Effect.gen(function* () {
            // Several heartbeats pass; the unit stays ours.
            const gone = yield* Effect.raceFirst(Effect.as(lost, true), Effect.as(Effect.sleep("60 millis"), false))
            yield* Deferred.succeed(stop, undefined)
            return (gone ? { _tag: "Stopped" } : { _tag: "Done" }) as UnitEnd
          })
      })
      expect(calls).toEqual(["settle done", "complete job-1"])
    })
  )
})
