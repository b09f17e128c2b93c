/**
 * A run's statistics: one owned object, changed only through its methods (by the record
 * processing, the answer cache and the worker pool), read as snapshots by progress reporting and
 * saved with the run. Plain fields, not Refs: they are bumped on the hot path of every record and
 * only ever touched from the one fiber scheduler of the process.
 */
import { Schema } from "effect"
import { type DiscoveredRate, RunStatsSnapshot } from "../ledger/stored.ts"
import type { DiscoveredRate as LiveRate } from "./flow/rate-discovery.ts"

export { RunStatsSnapshot }

/**
 * What a run is doing, for the progress display: reading the input (fingerprint, count), the
 * processing pass, finishing what is in flight after a stop, writing the output pass.
 */
export type RunPhase = "reading" | "processing" | "stopping" | "writing"

/** What a cluster's unit finished and asked (saved with the unit when it is done). */
export interface UnitCounters {
  readonly done: number
  readonly failed: number
  readonly requests: number
  readonly cacheHits: number
  readonly retries: number
  readonly rateLimited: number
  readonly tokens: number
}

export const unitCountersOf = (s: RunStatsSnapshot): UnitCounters => ({
  done: s.done,
  failed: s.failed,
  requests: s.requests,
  cacheHits: s.cacheHits,
  retries: s.retries,
  rateLimited: s.rateLimited,
  tokens: s.tokens
})

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
  private readonly rateSources = new Map<string, () => LiveRate | undefined>()

  constructor(initial: Partial<RunStatsSnapshot> = {}) {
    this.s = { ...emptyStats, since: Date.now(), ...initial }
  }

  /** The ledger's commit lag in this invocation, saved with the run's statistics. */
  setCommitLag(lag: NonNullable<RunStatsSnapshot["commitLag"]>) {
    this.s.commitLag = lag
  }

  /** What the committed output was written from (saved with the run: the next run may keep it). */
  setOutput(manifest: NonNullable<RunStatsSnapshot["output"]>) {
    this.s.output = manifest
  }

  setPhase(phase: RunPhase, now = Date.now()) {
    if (phase === this.phaseNow) return
    this.phaseNow = phase
    this.phaseStarted = now
    if (phase === "processing" && this.processingStarted === undefined) this.processingStarted = now
  }
  /** Records an earlier invocation of this (resumed) run finished: not left to do, not this invocation's work. */
  /**
   * A resumed (or retried) run's service counters from its earlier invocations, so the run's
   * statistics stay its totals: requests, cache hits, retries, 429s, tokens and stage counters.
   * (Records are counted again as the run goes: those already finished as skipped.)
   */
  carryCounters(earlier: RunStatsSnapshot) {
    this.earlier = earlier
  }
  private earlier: RunStatsSnapshot | undefined
  /** A cluster run's: what its units finished and asked, on whichever machine (see setUnits). */
  private units: UnitCounters | undefined

  /**
   * A cluster run's counters are its units' (every invocation's, as the unit board keeps them):
   * they replace the earlier invocations' (which counted the same units) in what is saved.
   */
  setUnits(counters: UnitCounters) {
    this.units = counters
  }

  /** What the ledger keeps for the run: this invocation's snapshot plus its earlier invocations' counters. */
  totals(): RunStatsSnapshot {
    const now = this.snapshot()
    const e = this.earlier
    if (e === undefined || this.units !== undefined) return now
    const stages: Record<string, number> = { ...e.stages }
    for (const [k, v] of Object.entries(now.stages)) stages[k] = (stages[k] ?? 0) + v
    return {
      ...now,
      requests: now.requests + e.requests,
      cacheHits: now.cacheHits + e.cacheHits,
      retries: now.retries + e.retries,
      rateLimited: now.rateLimited + e.rateLimited,
      tokens: now.tokens + e.tokens,
      stages
    }
  }
  setCarried(records: number) {
    this.carried = records
  }
  /** An input row through the output pass. */
  rowWritten(n = 1) {
    this.rowsWritten += n
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
    this.s.total = this.s.done + this.s.failed + (this.units === undefined ? 0 : this.units.done + this.units.failed)
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
  readReject(notUtf8 = false) {
    this.s.readRejects++
    if (notUtf8) this.s.readRejectsNotUtf8++
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

  /** A model's limiter learns its rate (no `limits.rpm`): read it with every snapshot. */
  watchRate(model: string, read: () => LiveRate | undefined) {
    this.rateSources.set(model, read)
  }

  snapshot(): RunStatsSnapshot {
    const rates: Record<string, DiscoveredRate> = { ...this.s.rates }
    for (const [model, read] of this.rateSources) {
      const live = read()
      if (live === undefined) continue
      rates[model] = {
        ...(live.suggestedRpm !== undefined ? { rpm: live.suggestedRpm } : {}),
        pacedRpm: Math.floor(live.rpm),
        decreases: live.decreases
      }
    }
    const u = this.units
    const s =
      u === undefined
        ? this.s
        : {
            ...this.s,
            done: this.s.done + u.done,
            failed: this.s.failed + u.failed,
            requests: this.s.requests + u.requests,
            cacheHits: this.s.cacheHits + u.cacheHits,
            retries: this.s.retries + u.retries,
            rateLimited: this.s.rateLimited + u.rateLimited,
            tokens: this.s.tokens + u.tokens
          }
    return { ...s, rates, stages: { ...this.stageCounts } }
  }
}

/**
 * The rates learnt for models run without `limits.rpm` (one line each), so the user can pin them.
 * A model that met no 429 has nothing to report.
 */
export const discoveredRateLines = (rates: RunStatsSnapshot["rates"]): Array<string> =>
  Object.entries(rates).flatMap(([model, r]) =>
    r.rpm === undefined || r.decreases === 0
      ? []
      : [
          `rate    ${model}: no limits.rpm set; learnt ~${r.rpm} requests/min from ${r.decreases} slow-down${r.decreases === 1 ? "" : "s"} on 429; ` +
            `pin it with limits.rpm: { ${model}: ${Math.floor(r.rpm * 0.95)} } (5% under, so a pinned run meets no 429)`
        ]
  )
