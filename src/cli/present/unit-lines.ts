/** A cluster run's units as `status --cluster` prints them: counts by state, each active worker, why any stopped. */
import type { UnitRow } from "../../cluster/unit-board.ts"

export interface UnitsView {
  readonly done: number
  readonly active: number
  readonly queued: number
  /** Refused, aborted or failed for good: the run stopped on them. */
  readonly failed: number
  readonly workers: ReadonlyArray<{ readonly worker: string; readonly unit: number; readonly silentFor: number | null }>
  readonly problems: ReadonlyArray<{ readonly unit: number; readonly state: string; readonly message: string }>
}

export const unitsView = (rows: ReadonlyArray<UnitRow>): UnitsView => ({
  done: rows.filter((u) => u.state === "done").length,
  active: rows.filter((u) => u.state === "active").length,
  queued: rows.filter((u) => u.state === "queued").length,
  failed: rows.filter((u) => u.state === "refused" || u.state === "aborted" || u.state === "failed").length,
  workers: rows
    .filter((u) => u.state === "active")
    .map((u) => ({ worker: u.worker ?? "?", unit: u.index, silentFor: u.silentFor })),
  problems: rows
    .filter((u) => u.message !== null && u.state !== "done" && u.state !== "active")
    .map((u) => ({ unit: u.index, state: u.state, message: u.message! }))
})

export const unitLines = (v: UnitsView): ReadonlyArray<string> => [
  `  units   ${v.done} done, ${v.active} active, ${v.queued} queued, ${v.failed} failed`,
  ...v.workers.map(
    (w) =>
      `  worker  ${w.worker}: unit ${w.unit}${w.silentFor !== null ? ` (last heard ${Math.round(w.silentFor)} s ago)` : ""}`
  ),
  ...v.problems.map((p) => `  unit ${p.unit}  ${p.state}: ${p.message}`)
]
