/**
 * A worker: `concurrency` slots, each taking the next unit of any job from the queue and working
 * it through `work` (the processing pass over the unit, see cli/worker-command.ts), reporting a
 * heartbeat meanwhile. A unit ends done; refused (the input unreadable here, or another file than
 * the coordinator's: the coordinator stops the run); aborted (the run's breaker); given back
 * (this worker stopping: the unit is queued again at once for another); or failed (retried by
 * pg-boss while attempts remain). A stop takes no new unit and lets the current ones give back.
 */
import { Deferred, Duration, Effect, Fiber, Schedule, Schema } from "effect"
import { hostname } from "node:os"
import type { UnitCounters } from "../engine/run-stats.ts"
import type { UnitBoard } from "./unit-board.ts"
import { UnitPayload } from "./unit-payload.ts"
import type { UnitQueue } from "./unit-queue.ts"

export type UnitEnd =
  | { readonly _tag: "Done" }
  | { readonly _tag: "Stopped" }
  | { readonly _tag: "Refused"; readonly reason: string }
  | { readonly _tag: "Aborted"; readonly reason: string }

export interface WorkerOptions<R> {
  readonly board: UnitBoard
  readonly queue: UnitQueue
  readonly concurrency: number
  /** Completes when the worker is asked to stop. */
  readonly stop: Effect.Effect<void>
  /** How long an idle slot waits before it asks the queue again (ms). */
  readonly pollMs: number
  /**
   * Works the unit; `progress` is given how to read the records it has finished so far (sent with
   * each heartbeat, for `status --cluster`).
   */
  readonly work: (
    payload: UnitPayload,
    progress: (read: () => UnitCounters) => void,
    /** Completes when the unit is no longer this worker's: stop it as for a stop, give nothing back. */
    lost: Effect.Effect<void>
  ) => Effect.Effect<UnitEnd, { readonly message: string }, R>
  /** Told of each unit's end (a log line). */
  readonly told?: (
    payload: UnitPayload,
    end: UnitEnd | { readonly _tag: "Failed"; readonly reason: string }
  ) => Effect.Effect<void>
}

/** This process, as `status --cluster` names it. */
export const workerName = (slot: number) => `${hostname()}:${process.pid}${slot > 0 ? `#${slot}` : ""}`

const decodePayload = Schema.decodeUnknown(UnitPayload)

export const runWorker = <R>(o: WorkerOptions<R>) =>
  Effect.gen(function* () {
    let stopping = false
    const stopWatch = yield* Effect.fork(
      Effect.zipRight(
        o.stop,
        Effect.sync(() => void (stopping = true))
      )
    )
    const slot = (n: number) =>
      Effect.gen(function* () {
        const me = workerName(n)
        while (!stopping) {
          const job = yield* o.queue.fetch
          if (job === undefined) {
            yield* Effect.raceFirst(Effect.sleep(Duration.millis(o.pollMs)), o.stop)
            continue
          }
          const decoded = yield* Effect.either(decodePayload(job.data))
          if (decoded._tag === "Left") {
            yield* o.queue.fail(job.id, "not a unit of svc-batch")
            continue
          }
          const payload = decoded.right
          const { runId, index } = payload
          const attempts = yield* o.board.taken(runId, index, me)
          yield* Effect.logInfo(`run ${runId} unit ${index} (${payload.unit.rows} rows): taken, attempt ${attempts}`)
          let counters: () => UnitCounters | undefined = () => undefined
          const finished = () => {
            const c = counters()
            return c === undefined ? 0 : c.done + c.failed
          }
          // A heartbeat that finds the unit no longer ours (this process was silent too long, and the
          // coordinator gave it to another): stop working it at once, or both would ask its records.
          const lost = yield* Deferred.make<void>()
          const beat = yield* Effect.fork(
            Effect.suspend(() => o.board.heartbeat(runId, index, me, finished())).pipe(
              Effect.flatMap((kept) => (kept ? Effect.void : Deferred.succeed(lost, undefined))),
              Effect.ignore,
              Effect.repeat(Schedule.spaced(Duration.millis(payload.heartbeatMs)))
            )
          )
          const end = yield* Effect.either(o.work(payload, (read) => void (counters = read), Deferred.await(lost)))
          yield* Fiber.interrupt(beat)
          if (yield* Deferred.isDone(lost)) {
            // The unit is another worker's now (and its pg-boss job too): nothing to settle or give back.
            yield* Effect.logWarning(
              `run ${runId} unit ${index}: given to another worker while this one was silent; stopped here`
            )
            continue
          }
          if (end._tag === "Left") {
            const reason = end.left.message
            // The last attempt: the unit fails for good (the coordinator stops the run); else pg-boss retries it at once.
            const last = attempts > payload.retryLimit
            yield* o.board.settle(runId, index, last ? "failed" : "queued", `${me}: ${reason}`)
            yield* o.queue.fail(job.id, reason)
            if (o.told) yield* o.told(payload, { _tag: "Failed", reason })
            continue
          }
          const result = end.right
          if (result._tag === "Stopped") {
            // Given back at once, without spending one of its attempts: a fresh unit in the queue.
            const id = yield* o.queue.send(payload, payload.retryLimit)
            yield* o.board.queued(runId, index, id, `given back by ${me} (stopping)`, true)
            yield* o.queue.complete(job.id)
          } else {
            const state = result._tag === "Done" ? "done" : result._tag === "Refused" ? "refused" : "aborted"
            yield* o.board.settle(
              runId,
              index,
              state,
              result._tag === "Done" ? null : `${me}: ${result.reason}`,
              result._tag === "Done" ? counters() : undefined
            )
            yield* o.queue.complete(job.id)
          }
          if (o.told) yield* o.told(payload, result)
        }
      })
    yield* Effect.all(
      Array.from({ length: Math.max(1, o.concurrency) }, (_, n) => slot(n)),
      { concurrency: "unbounded", discard: true }
    )
    yield* Fiber.interrupt(stopWatch)
  })
