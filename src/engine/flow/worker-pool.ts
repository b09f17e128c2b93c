/**
 * A fixed pool of worker fibers fed by a queue bounded in items and, optionally, in bytes (cheaper
 * per item than a forked fiber each), with a graceful stop: on `stop` the reader ends, items already started get `grace` to
 * finish, queued ones are not started; then whatever is still running is interrupted.
 */
import { Chunk, Duration, Effect, Queue, Stream } from "effect"
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
  /**
   * Passed by a worker before it takes the next item, told when that item is finished (the start
   * gate, start-gate.ts); it must let every worker through once `stop` has completed.
   */
  readonly gate?: { readonly wait: Effect.Effect<void>; readonly finished: () => void }
}

/** Runs every item through `process`; says whether a stop cut it short. */
export const runPool = <A, E, R, E2, R2>(
  options: PoolOptions<A, E, R, E2, R2>
): Effect.Effect<{ readonly stopped: boolean }, E | E2, R | R2> =>
  Effect.gen(function* () {
    let stopped = false
    const markStopped = Effect.sync(() => void (stopped = true))
    const queue = yield* Queue.bounded<{ readonly item: A; readonly bytes: number } | undefined>(options.workers)
    // Bounded by count (the queue) and by bytes: a few huge records must not fill the memory.
    const sizeOf = options.sizeOf
    const gate = makeByteGate(options.maxBytes ?? Number.POSITIVE_INFINITY)
    /**
     * Queues `items` from `start` on: the run that fits the byte bound in one offer (a wait for room
     * in the queue is one per run, not one per item); an item over the bound waits for bytes to be
     * released, alone, then the rest follows.
     */
    const offerFrom = (items: ReadonlyArray<A>, start: number): Effect.Effect<void> => {
      const entries: Array<{ readonly item: A; readonly bytes: number }> = []
      let i = start
      let bytes = 0
      for (; i < items.length; i++) {
        bytes = sizeOf === undefined ? 0 : sizeOf(items[i]!)
        if (!gate.tryAdmit(bytes)) break
        entries.push({ item: items[i]!, bytes })
      }
      const offered = entries.length === 0 ? Effect.void : Queue.offerAll(queue, entries)
      if (i === items.length) return offered
      const next = i
      const held = { item: items[next]!, bytes }
      return offered.pipe(
        Effect.zipRight(gate.admit(held.bytes)),
        Effect.zipRight(Queue.offer(queue, held)),
        Effect.zipRight(Effect.suspend(() => offerFrom(items, next + 1)))
      )
    }
    const reader = options.items.pipe(
      Stream.interruptWhen(Effect.zipRight(options.stop, markStopped)),
      Stream.runForEachChunk((chunk) => offerFrom(Chunk.toReadonlyArray(chunk), 0)),
      // One end marker per worker once reading is over (normally or by a stop). Not on failure:
      // then the workers are interrupted and nobody would take them.
      Effect.zipRight(
        Effect.forEach(Array.from({ length: options.workers }), () => Queue.offer(queue, undefined), { discard: true })
      )
    )
    // A loop of effects, not a generator: this runs once per item.
    const startGate = options.gate
    const take = startGate === undefined ? Queue.take(queue) : Effect.zipRight(startGate.wait, Queue.take(queue))
    const worker: Effect.Effect<void, E2, R2> = Effect.flatMap(take, (next) => {
      if (next === undefined || stopped) startGate?.finished()
      if (next === undefined) return Effect.void
      // After a stop, queued items are not started, but still taken so the end markers get through.
      if (stopped) {
        gate.release(next.bytes)
        return worker
      }
      return Effect.zipRight(
        Effect.onExit(options.process(next.item), () =>
          Effect.sync(() => {
            gate.release(next.bytes)
            startGate?.finished()
          })
        ),
        worker
      )
    })
    const pass = Effect.all([reader, ...Array.from({ length: options.workers }, () => worker)], {
      concurrency: "unbounded",
      discard: true
    })
    // A stop counts at once, also when the reader has already read everything (a stop near the
    // end): queued items are left for the next run; started ones get the grace period.
    const graceOver =
      options.drained === undefined
        ? Effect.sleep(options.grace)
        : Effect.raceFirst(Effect.sleep(options.grace), options.drained)
    const deadline = options.stop.pipe(Effect.zipRight(markStopped), Effect.zipRight(graceOver))
    yield* Effect.raceFirst(pass, deadline)
    return { stopped }
  })
