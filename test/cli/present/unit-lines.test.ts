import { describe, expect, it } from "@effect/vitest"
import type { UnitRow } from "../../../src/cluster/unit-board.ts"
import { unitLines, unitsView } from "../../../src/cli/present/unit-lines.ts"

const row = (index: number, state: UnitRow["state"], extra: Partial<UnitRow> = {}): UnitRow => ({
  index,
  state,
  bossId: null,
  worker: null,
  attempts: 1,
  message: null,
  silentFor: null,
  rows: 500,
  age: 0,
  progress: 0,
  busyFor: null,
  counters: null,
  ...extra
})

describe("status --cluster's unit lines", () => {
  it("count the records of the units done and what the active ones finished, with each worker's rate", () => {
    const view = unitsView([
      row(0, "done"),
      row(1, "active", { worker: "a:1", progress: 200, busyFor: 10, silentFor: 2 }),
      row(2, "queued")
    ])
    expect(unitLines(view)).toEqual([
      "  units   1 done, 1 active, 1 queued, 0 failed; 700/1,500 records",
      "  worker  a:1: unit 1, 200/500 records, 20 rec/s (last heard 2 s ago)"
    ])
  })

  it("set the rate the service answered against limits.rpm, or against the rate discovered", () => {
    const served = [
      { origin: "https://svc.example", model: "svc3-guard", perMinute: 2940, discoveredPerMinute: 1000 },
      { origin: "https://svc.example", model: "svc3-embedding", perMinute: 900, discoveredPerMinute: 1200 },
      { origin: "", model: "svc3-small", perMinute: 10, discoveredPerMinute: null }
    ]
    expect(unitLines(unitsView([], served, { "svc3-guard": 3000 })).slice(1)).toEqual([
      "  cluster svc3-guard: 2,940/min answered of 3,000/min (limits.rpm, 98 %) at https://svc.example",
      "  cluster svc3-embedding: 900/min answered of 1,200/min (discovered, 75 %) at https://svc.example",
      "  cluster svc3-small: 10/min answered at the embedded emulator"
    ])
  })
})
