/**
 * A run as `status` and `runs` show it: counts, rate, ETA and whether a "running" run is alive,
 * computed from what the ledger holds (the statistics a running run saves every few seconds).
 */
import type { Run } from "../ledger/ledger.ts"

/** A running run that has not saved its statistics for this long has most likely been killed. */
export const STALE_MS = 15_000

export interface RunView {
  readonly id: number
  readonly job: string
  /**
   * `running` only while its process lives and saves statistics; `stale` when the process is gone
   * (seen at once on this host by the job's lock) or stopped saving them (15 s).
   */
  readonly state: "running" | "stale" | "interrupted" | "finished" | "aborted"
  /** Why a stale run is taken for dead: `process gone` (the lock says so) or `no update` (silent for 15 s). */
  readonly staleCause: string | null
  readonly service: string | null
  readonly startedAt: string
  readonly finishedAt: string | null
  readonly updatedAt: string | null
  readonly durationSeconds: number | null
  readonly total: number
  readonly totalIsEstimate: boolean
  readonly done: number
  readonly failed: number
  readonly pending: number
  readonly requests: number
  readonly cacheHits: number
  readonly retries: number
  readonly rateLimited: number
  readonly tokens: number
  /** Records per second of its latest invocation. */
  readonly rate: number | null
  /** Seconds left at that rate (running runs only). */
  readonly etaSeconds: number | null
  /** Retention removed its per-record outcomes: the counts are its saved statistics. */
  readonly recordsRemoved: boolean
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/**
 * `processGone`: for a run the ledger calls running, why its process is known to be gone (from the
 * job's lock, `lockOwnerGone`), which makes it stale at once; else the 15-s rule alone decides.
 */
export const viewOf = (run: Run, now: number = Date.now(), processGone?: string, recordsRemoved = false): RunView => {
  const s = run.stats
  const finished = s.done + s.failed
  const silent = run.updatedAt === null || now - run.updatedAt > STALE_MS
  const state = run.status === "running" ? (processGone === undefined && !silent ? "running" : "stale") : run.status
  const staleCause =
    state !== "stale"
      ? null
      : (processGone ?? `no update for ${duration((now - (run.updatedAt ?? run.startedAt)) / 1000)}`)
  const end = run.finishedAt ?? run.updatedAt ?? now
  const since = s.since > 0 ? s.since : run.startedAt
  const seconds = (end - since) / 1000
  const rate = seconds > 0 ? (finished - s.skipped) / seconds : null
  const pending = Math.max(0, s.total - finished)
  return {
    id: run.id,
    job: run.job,
    state,
    staleCause,
    service: run.service,
    startedAt: iso(run.startedAt)!,
    finishedAt: iso(run.finishedAt),
    updatedAt: iso(run.updatedAt),
    durationSeconds: run.finishedAt !== null ? (run.finishedAt - run.startedAt) / 1000 : null,
    total: s.total,
    totalIsEstimate: s.totalIsEstimate,
    done: s.done,
    failed: s.failed,
    pending,
    requests: s.requests,
    cacheHits: s.cacheHits,
    retries: s.retries,
    rateLimited: s.rateLimited,
    tokens: s.tokens,
    rate: rate === null ? null : Math.round(rate * 10) / 10,
    etaSeconds: state === "running" && rate !== null && rate > 0 ? Math.ceil(pending / rate) : null,
    recordsRemoved
  }
}

const duration = (seconds: number | null) => {
  if (seconds === null) return "-"
  const s = Math.round(seconds)
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
      : `${s}s`
}

const origin = (service: string | null) => (service === null ? "?" : service === "emulator" ? "EMULATOR" : service)

/** The lines `status` prints; `file`: the job file, for the hint to resume. */
export const statusLines = (v: RunView, file?: string): ReadonlyArray<string> => {
  const why = v.staleCause?.startsWith("no update")
    ? `${v.staleCause}: its process is most likely gone`
    : `interrupted: ${v.staleCause}`
  const head = `run ${v.id} of ${v.job}: ${v.state}${v.state === "stale" ? ` (${why}; to resume, run the same command again, e.g. svc-batch run ${file ?? "<job-file>"})` : ""}`
  const total = `${v.totalIsEstimate ? "~" : ""}${v.total}`
  return [
    head,
    `  records  ${v.done + v.failed}/${total} (${v.done} done, ${v.failed} failed, ${v.pending} pending)${v.recordsRemoved ? `; removed by retention (retention.runs / gc): these are the run's saved counts` : ""}`,
    `  rate     ${v.rate === null ? "-" : `${v.rate} rec/s`}${v.etaSeconds !== null ? `, ETA ${duration(v.etaSeconds)}` : ""}`,
    `  service  requests ${v.requests}, cache hits ${v.cacheHits}, retries ${v.retries}, 429s ${v.rateLimited}, tokens ${v.tokens} — ${origin(v.service)}`,
    `  started  ${v.startedAt}${v.finishedAt ? `, ended ${v.finishedAt} (${duration(v.durationSeconds)})` : v.updatedAt ? `, last update ${v.updatedAt}` : ""}`
  ]
}

/** One line per run for `runs`. */
export const runsTable = (views: ReadonlyArray<RunView>): ReadonlyArray<string> => {
  const rows = views.map((v) => [
    String(v.id),
    v.state,
    v.startedAt.slice(0, 19).replace("T", " "),
    duration(v.durationSeconds),
    String(v.done),
    String(v.failed),
    String(v.requests),
    String(v.cacheHits),
    origin(v.service)
  ])
  const head = ["run", "state", "started (UTC)", "took", "done", "failed", "requests", "cache hits", "service"]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const fmt = (r: ReadonlyArray<string>) =>
    r
      .map((c, i) => (i >= 4 && i <= 7 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd()
  // Retention's mark at the end of the row: the counts stay, the records are gone.
  return [
    fmt(head),
    ...rows.map((r, i) => `${fmt(r)}${views[i]!.recordsRemoved ? "  records removed by retention" : ""}`)
  ]
}
