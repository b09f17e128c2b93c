/**
 * A fixed pool of worker fibers fed by a queue bounded in items and, optionally, in bytes (cheaper
 * per item than a forked fiber each), with a graceful stop: on `stop` the reader ends, items already started get `grace` to
 * finish, queued ones are not started; then whatever is still running is interrupted.
 */
import { Duration, Effect, Queue, Stream } from "effect"
import { makeByteGate } from "./byte-gate.ts"

export interface PoolOptions<A, E, R, E2, R2> {
  readonly items: Stream.Stream<A, E, R>
  readonly workers: number
  readonly process: (item: A) => Effect.Effect<void, E2, R2>
  /** Completes when a stop is asked. */
  readonly stop: Effect.Effect<void>
  readonly grace: Duration.DurationInput
  /** After a stop, completes when nothing started can make progress any more (ends the grace early). */
  readonly drained?: Effect.Effect<void>
  /** Bytes an item holds (approximately), with `maxBytes`: items queued or in progress stay within it. */
  readonly sizeOf?: (item: A) => number
  readonly maxBytes?: number
}

/** Runs every item through `process`; says whether a stop cut it short. */
export const runPool = <A, E, R, E2, R2>(options: PoolOptions<A, E, R, E2, R2>): Effect.Effect<{ readonly stopped: boolean }, E | E2, R | R2> =>
  Effect.gen(function* () {
    let stopped = false
    const markStopped = Effect.sync(() => void (stopped = true))
    const queue = yield* Queue.bounded<{ readonly item: A; readonly bytes: number } | undefined>(options.workers)
    // Bounded by count (the queue) and by bytes: a few huge records must not fill the memory.
    const sizeOf = options.sizeOf
    const gate = makeByteGate(options.maxBytes ?? Number.POSITIVE_INFINITY)
    const reader = options.items.pipe(
      Stream.interruptWhen(Effect.zipRight(options.stop, markStopped)),
      Stream.runForEach((item) => {
        if (sizeOf === undefined) return Queue.offer(queue, { item, bytes: 0 })
        const bytes = sizeOf(item)
        return Effect.zipRight(gate.admit(bytes), Queue.offer(queue, { item, bytes }))
      }),
      // One end marker per worker once reading is over (normally or by a stop). Not on failure:
      // then the workers are interrupted and nobody would take them.
      Effect.zipRight(Effect.forEach(Array.from({ length: options.workers }), () => Queue.offer(queue, undefined), { discard: true }))
    )
    const worker = Effect.gen(function* () {
      while (true) {
        const next = yield* Queue.take(queue)
        if (next === undefined) return
        // After a stop, queued items are not started, but still taken so the end markers get through.
        if (!stopped) yield* Effect.ensuring(options.process(next.item), Effect.sync(() => gate.release(next.bytes)))
        else gate.release(next.bytes)
      }
    })
    const pass = Effect.all([reader, ...Array.from({ length: options.workers }, () => worker)], { concurrency: "unbounded", discard: true })
    // A stop counts at once, also when the reader has already read everything (a stop near the
    // end): queued items are left for the next run; started ones get the grace period.
    const graceOver = options.drained === undefined ? Effect.sleep(options.grace) : Effect.raceFirst(Effect.sleep(options.grace), options.drained)
    const deadline = options.stop.pipe(Effect.zipRight(markStopped), Effect.zipRight(graceOver))
    yield* Effect.raceFirst(pass, deadline)
    return { stopped }
  })
