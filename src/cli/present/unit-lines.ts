/**
 * A cluster run's units as `status --cluster` prints them: counts by state and the records they
 * hold, each active worker with its unit's progress and rate, why any stopped, and the rate the
 * service answered the cluster at against its budget.
 */
import type { ServedRate } from "../../cluster/served-rates.ts"
import type { UnitRow } from "../../cluster/unit-board.ts"
import { thousands } from "../../engine/thousands.ts"

export interface WorkerView {
  readonly worker: string
  readonly unit: number
  readonly silentFor: number | null
  /** Records it has finished of the unit's `rows`. */
  readonly progress: number
  readonly rows: number
  /** Records per second since it took the unit (null: just taken). */
  readonly recordsPerSecond: number | null
}

export interface RateView {
  readonly model: string
  readonly origin: string
  /** Answered per minute, lately, by every process on the database. */
  readonly perMinute: number
  /** What paces it: the job's limits.rpm, or the rate discovered together. */
  readonly budget: { readonly rpm: number; readonly from: "limits.rpm" | "discovered" } | null
}

export interface UnitsView {
  readonly done: number
  readonly active: number
  readonly queued: number
  /** Refused, aborted or failed for good: the run stopped on them. */
  readonly failed: number
  /** Records finished: the rows of the units done and what active units have finished. */
  readonly records: number
  readonly totalRecords: number
  readonly workers: ReadonlyArray<WorkerView>
  readonly problems: ReadonlyArray<{ readonly unit: number; readonly state: string; readonly message: string }>
  readonly rates: ReadonlyArray<RateView>
}

export const unitsView = (
  rows: ReadonlyArray<UnitRow>,
  served: ReadonlyArray<ServedRate> = [],
  rpm: Readonly<Record<string, number>> = {}
): UnitsView => {
  const active = rows.filter((u) => u.state === "active")
  const done = rows.filter((u) => u.state === "done")
  return {
    done: done.length,
    active: active.length,
    queued: rows.filter((u) => u.state === "queued").length,
    failed: rows.filter((u) => u.state === "refused" || u.state === "aborted" || u.state === "failed").length,
    records: done.reduce((n, u) => n + u.rows, 0) + active.reduce((n, u) => n + u.progress, 0),
    totalRecords: rows.reduce((n, u) => n + u.rows, 0),
    workers: active.map((u) => ({
      worker: u.worker ?? "?",
      unit: u.index,
      silentFor: u.silentFor,
      progress: u.progress,
      rows: u.rows,
      recordsPerSecond: u.busyFor === null || u.busyFor < 1 ? null : u.progress / u.busyFor
    })),
    problems: rows
      .filter((u) => u.message !== null && u.state !== "done" && u.state !== "active")
      .map((u) => ({ unit: u.index, state: u.state, message: u.message! })),
    rates: served.map((s) => {
      const pinned = rpm[s.model] ?? rpm["*"]
      return {
        model: s.model,
        origin: s.origin,
        perMinute: s.perMinute,
        budget:
          pinned !== undefined
            ? { rpm: pinned, from: "limits.rpm" }
            : s.discoveredPerMinute !== null
              ? { rpm: s.discoveredPerMinute, from: "discovered" }
              : null
      }
    })
  }
}

const budgetOf = (r: RateView) =>
  r.budget === null
    ? ""
    : ` of ${thousands(Math.round(r.budget.rpm))}/min (${r.budget.from === "limits.rpm" ? "limits.rpm" : "discovered"}, ${Math.round((100 * r.perMinute) / r.budget.rpm)} %)`

export const unitLines = (v: UnitsView): ReadonlyArray<string> => [
  `  units   ${v.done} done, ${v.active} active, ${v.queued} queued, ${v.failed} failed; ${thousands(v.records)}/${thousands(v.totalRecords)} records`,
  ...v.workers.map(
    (w) =>
      `  worker  ${w.worker}: unit ${w.unit}, ${thousands(w.progress)}/${thousands(w.rows)} records${w.recordsPerSecond === null ? "" : `, ${thousands(Math.round(w.recordsPerSecond))} rec/s`}${w.silentFor !== null ? ` (last heard ${Math.round(w.silentFor)} s ago)` : ""}`
  ),
  ...v.rates.map(
    (r) =>
      `  cluster ${r.model}: ${thousands(Math.round(r.perMinute))}/min answered${budgetOf(r)} at ${r.origin === "" ? "the embedded emulator" : r.origin}`
  ),
  ...v.problems.map((p) => `  unit ${p.unit}  ${p.state}: ${p.message}`)
]
