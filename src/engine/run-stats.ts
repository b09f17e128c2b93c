/**
 * A run's statistics: one owned object, changed only through its methods (by the record
 * processing, the answer cache and the worker pool), read as snapshots by progress reporting and
 * saved with the run. Plain fields, not Refs: they are bumped on the hot path of every record and
 * only ever touched from the one fiber scheduler of the process.
 */
import { Schema } from "effect"
import { RunStatsSnapshot } from "../ledger/stored.ts"

export { RunStatsSnapshot }

/**
 * What a run is doing, for the progress display: reading the input (fingerprint, count), the
 * processing pass, finishing what is in flight after a stop, writing the output pass.
 */
export type RunPhase = "reading" | "processing" | "stopping" | "writing"

export const emptyStats: RunStatsSnapshot = Schema.decodeUnknownSync(RunStatsSnapshot)({})

export class RunStats {
  private s: {
    -readonly [K in keyof RunStatsSnapshot]: RunStatsSnapshot[K]
  }
  private readonly stageCounts: Record<string, number> = {}
  // Display-only state, not saved with the run.
  private phaseNow: RunPhase = "reading"
  private phaseStarted = Date.now()
  private processingStarted: number | undefined
  private carried = 0
  private rowsWritten = 0

  constructor(initial: Partial<RunStatsSnapshot> = {}) {
    this.s = { ...emptyStats, since: Date.now(), ...initial }
  }

  setPhase(phase: RunPhase, now = Date.now()) {
    if (phase === this.phaseNow) return
    this.phaseNow = phase
    this.phaseStarted = now
    if (phase === "processing" && this.processingStarted === undefined) this.processingStarted = now
  }
  /** Records an earlier invocation of this (resumed) run finished: not left to do, not this invocation's work. */
  setCarried(records: number) {
    this.carried = records
  }
  /** An input row through the output pass. */
  rowWritten() {
    this.rowsWritten++
  }
  /** The display's view: phase, when it began, this invocation's processing start, carried records, rows written. */
  progress() {
    return {
      phase: this.phaseNow,
      phaseStartedAt: this.phaseStarted,
      processingStartedAt: this.processingStarted,
      carried: this.carried,
      written: this.rowsWritten
    }
  }

  setTotal(total: number, estimate: boolean) {
    this.s.total = total
    this.s.totalIsEstimate = estimate
  }
  /** The reading pass saw every record: the total is what was finished. */
  settleTotal() {
    this.s.total = this.s.done + this.s.failed
    this.s.totalIsEstimate = false
  }
  recordDone(counts?: Readonly<Record<string, number>>) {
    this.s.done++
    if (counts) for (const [k, v] of Object.entries(counts)) this.stageCounts[k] = (this.stageCounts[k] ?? 0) + v
  }
  recordFailed() {
    this.s.failed++
  }
  /** A record an earlier invocation of this run finished. */
  recordSkipped(failed: boolean) {
    this.s.skipped++
    if (failed) this.s.failed++
    else this.s.done++
  }
  readReject() {
    this.s.readRejects++
  }
  request() {
    this.s.requests++
  }
  cacheHit() {
    this.s.cacheHits++
  }
  retry() {
    this.s.retries++
  }
  rateLimited() {
    this.s.rateLimited++
  }
  tokens(n: number) {
    this.s.tokens += n
  }

  snapshot(): RunStatsSnapshot {
    return { ...this.s, stages: { ...this.stageCounts } }
  }
}
