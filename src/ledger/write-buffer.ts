/**
 * The ledger's write-behind buffer: operations gather and are committed in one transaction when
 * the event loop finishes its current turn (setImmediate), or at once, by the writer that adds one,
 * when the batch is full or its oldest operation has waited `maxLagMs`.
 *
 * Why not a writer fiber sleeping a linger between commits: on a busy event loop (hundreds of
 * responses per turn) a timer fires late, and a 20 ms linger became commits 50 ms apart with
 * answers waiting up to 234 ms — every answer received but not committed is asked (and paid) again
 * after a SIGKILL. Here the wait is bounded by the clock checked at each write, not by a timer.
 * Commits are synchronous (better-sqlite3) and never span an HTTP call.
 */

export interface CommitLag {
  /** Transactions committed. */
  readonly commits: number
  /** The longest any operation waited for its commit (ms). */
  readonly maxMs: number
  /** 99% of operations waited at most this long (ms; the upper bound of a histogram bucket). */
  readonly p99Ms: number
}

export interface WriteBuffer<Op> {
  /** Adds an operation; may commit (synchronously) when the batch is full or old enough. Throws when a commit failed. */
  readonly add: (op: Op) => void
  /** Commits what is buffered now. Throws when this or an earlier commit failed. */
  readonly flush: () => void
  readonly lag: () => CommitLag
}

/** Upper bounds (ms) of the lag histogram's buckets; the last catches the rest. */
const BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, Infinity]

/** How long operations waited for their commit: counted per commit, read as a CommitLag. */
export const lagHistogram = () => {
  let commits = 0
  let maxMs = 0
  const histogram = new Array<number>(BUCKETS.length).fill(0)
  return {
    /** One commit of operations added at `times`, done at `now`. */
    committed: (times: ReadonlyArray<number>, now: number) => {
      commits++
      for (const t of times) {
        const lag = now - t
        if (lag > maxMs) maxMs = lag
        let b = 0
        while (lag > BUCKETS[b]!) b++
        histogram[b]!++
      }
    },
    lag: (): CommitLag => {
      const total = histogram.reduce((a, b) => a + b, 0)
      let seen = 0
      let p99Ms = 0
      for (let b = 0; b < BUCKETS.length; b++) {
        seen += histogram[b]!
        if (seen >= total * 0.99) {
          p99Ms = Math.min(BUCKETS[b]!, maxMs)
          break
        }
      }
      return { commits, maxMs, p99Ms }
    }
  }
}

export const makeWriteBuffer = <Op>(options: {
  readonly commit: (ops: ReadonlyArray<Op>) => void
  readonly maxOps: number
  readonly maxLagMs: number
  /** The clock (ms); tests pass their own. */
  readonly now?: () => number
}): WriteBuffer<Op> => {
  const clock = options.now ?? (() => performance.now())
  let ops: Array<Op> = []
  let at: Array<number> = []
  let scheduled: NodeJS.Immediate | undefined
  let failure: unknown
  const lags = lagHistogram()

  const flush = () => {
    if (scheduled !== undefined) {
      clearImmediate(scheduled)
      scheduled = undefined
    }
    if (failure !== undefined) throw failure
    if (ops.length === 0) return
    const batch = ops
    const times = at
    ops = []
    at = []
    try {
      options.commit(batch)
    } catch (e) {
      failure = e
      throw e
    }
    lags.committed(times, clock())
  }

  // A commit from the event loop's turn end has no caller to fail: its error waits for the next add or flush.
  const onTurnEnd = () => {
    scheduled = undefined
    try {
      flush()
    } catch {
      // kept in `failure`
    }
  }

  return {
    add: (op) => {
      if (failure !== undefined) throw failure
      ops.push(op)
      const now = clock()
      at.push(now)
      if (ops.length >= options.maxOps || now - at[0]! >= options.maxLagMs) flush()
      else scheduled ??= setImmediate(onTurnEnd)
    },
    flush,
    lag: lags.lag
  }
}
