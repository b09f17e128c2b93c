/**
 * The write-behind buffer of a ledger whose commits are round trips (PostgreSQL): operations gather
 * while a commit is in flight and go together in the next one (a group commit), so a commit costs
 * one round trip per batch, never one per record, and the hot path does not wait for it. As in
 * write-buffer.ts, an idle buffer commits when the event loop finishes its turn, or at once when
 * the batch is full or its oldest operation has waited `maxLagMs`. One commit at a time: a later
 * write of the same row always lands after an earlier one.
 *
 * A writer waits only when the backlog passes `maxBacklog` operations (the server slower than the
 * answers coming in): then `add` returns the commit in flight to wait for, so memory stays bounded.
 */
import { type CommitLag, lagHistogram } from "./write-buffer.ts"

export interface AsyncWriteBuffer<Op> {
  /** Adds an operation; returns a promise to wait for only when the backlog is over its bound. Throws when a commit failed. */
  readonly add: (op: Op) => Promise<void> | undefined
  /** Commits everything added before it. Rejects when this or an earlier commit failed. */
  readonly flush: () => Promise<void>
  readonly lag: () => CommitLag
}

export const makeAsyncWriteBuffer = <Op>(options: {
  readonly commit: (ops: ReadonlyArray<Op>) => Promise<void>
  /** Most operations per commit. */
  readonly maxOps: number
  readonly maxLagMs: number
  /** Operations waiting beyond which a writer waits for the commit in flight (default 8 × maxOps). */
  readonly maxBacklog?: number
  readonly now?: () => number
}): AsyncWriteBuffer<Op> => {
  const clock = options.now ?? (() => performance.now())
  const maxBacklog = options.maxBacklog ?? options.maxOps * 8
  let ops: Array<Op> = []
  let at: Array<number> = []
  let scheduled: NodeJS.Immediate | undefined
  let inFlight: Promise<void> | undefined
  let failure: unknown
  const lags = lagHistogram()

  const start = () => {
    if (scheduled !== undefined) {
      clearImmediate(scheduled)
      scheduled = undefined
    }
    if (inFlight !== undefined || ops.length === 0 || failure !== undefined) return
    const batch = ops.length <= options.maxOps ? ops : ops.slice(0, options.maxOps)
    const times = ops.length <= options.maxOps ? at : at.slice(0, options.maxOps)
    ops = ops.length <= options.maxOps ? [] : ops.slice(options.maxOps)
    at = at.length <= options.maxOps ? [] : at.slice(options.maxOps)
    // Never rejects: a failure is kept and told to the next add or flush.
    inFlight = options.commit(batch).then(
      () => lags.committed(times, clock()),
      (e: unknown) => void (failure ??= e)
    )
    void inFlight.finally(() => {
      inFlight = undefined
      // What gathered during the round trip goes at once: it has waited already.
      start()
    })
  }

  return {
    add: (op) => {
      if (failure !== undefined) throw failure
      ops.push(op)
      const now = clock()
      at.push(now)
      if (inFlight === undefined) {
        if (ops.length >= options.maxOps || now - at[0]! >= options.maxLagMs) start()
        else scheduled ??= setImmediate(start)
      }
      return ops.length >= maxBacklog ? inFlight : undefined
    },
    flush: async () => {
      while (failure === undefined && (inFlight !== undefined || ops.length > 0)) {
        start()
        await inFlight
      }
      if (failure !== undefined) throw failure
    },
    lag: lags.lag
  }
}
