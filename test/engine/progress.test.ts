/** The progress line: a pure render of a snapshot at a width, and the live line's notices. */
import { describe, expect, it } from "@effect/vitest"
import { emptyStats } from "../../src/engine/run-stats.ts"
import {
  formatDuration,
  type ProgressSnapshot,
  progressEta,
  renderProgress,
  StatusLine
} from "../../src/engine/progress.ts"

const T0 = 1_700_000_000_000

const snapshot = (
  over: Partial<Omit<ProgressSnapshot, "counters">> & { counters?: Partial<ProgressSnapshot["counters"]> } = {}
): ProgressSnapshot => ({
  phase: "processing",
  phaseStartedAt: T0,
  processingStartedAt: T0,
  carried: 0,
  written: 0,
  now: T0 + 10_000,
  cache: true,
  ...over,
  counters: { ...emptyStats, total: 9467, totalIsEstimate: false, ...over.counters }
})

const busy = snapshot({
  counters: {
    done: 1200,
    failed: 34,
    requests: 1300,
    cacheHits: 150,
    retries: 12,
    rateLimited: 7,
    stages: { translate_skipped: 5 }
  }
})

describe("renderProgress", () => {
  it("fits 80 columns with the phase and the counters first", () => {
    const line = renderProgress(busy, 80)
    expect(line.length).toBeLessThanOrEqual(79)
    expect(line.startsWith("processing · 1,234/9,467 · 34 failed · ETA ")).toBe(true)
  })

  it("fits a narrow terminal by dropping the least useful parts, never the counters", () => {
    const line = renderProgress(busy, 40)
    expect(line.length).toBeLessThanOrEqual(39)
    expect(line).toContain("processing · 1,234/9,467")
    expect(line).not.toContain("retries")
  })

  it("shows a bar and every counter on a wide terminal", () => {
    const line = renderProgress(busy, 200)
    expect(line).toMatch(/^processing · 1,234\/9,467 \[#+-+\] · 34 failed · ETA /)
    for (const part of ["requests 1,300", "cache hits 150", "429s 7", "retries 12", "translate skipped 5"])
      expect(line).toContain(part)
    expect(line.length).toBeLessThanOrEqual(199)
  })

  it("on a resumed run, the ETA is this invocation's rate over what is left", () => {
    // 9,000 records finished by the earlier invocation (all met again as skipped), 100 more in 10 s here.
    const s = snapshot({ carried: 9000, counters: { total: 10_000, done: 9100, skipped: 9000 } })
    expect(progressEta(s)).toBe(90)
    expect(renderProgress(s, 120)).toContain("ETA 1m30s")
    expect(renderProgress(s, 120)).toContain("10.0 rec/s")
  })

  it("after a stop: says stopping, keeps the input's total, no ETA", () => {
    const line = renderProgress(snapshot({ phase: "stopping", counters: { done: 4000 } }), 120)
    expect(line).toMatch(/^stopping · 4,000\/9,467 .*finishing requests in flight/)
    expect(line).not.toContain("ETA")
  })

  it("names the reading and writing phases", () => {
    expect(renderProgress(snapshot({ phase: "reading", processingStartedAt: undefined, now: T0 + 3000 }), 80)).toBe(
      "reading input · 3s"
    )
    const writing = snapshot({ phase: "writing", written: 400_000, counters: { total: 1_000_000, done: 1_000_000 } })
    expect(renderProgress(writing, 80)).toBe("writing output · 400,000/1,000,000 rows · 10s")
  })

  it("shows no cache hits when the cache is off", () => {
    expect(renderProgress({ ...busy, cache: false }, 200)).not.toContain("cache")
  })

  it("as a log line (no width): every part, no bar", () => {
    const line = renderProgress(busy)
    expect(line).not.toContain("[#")
    expect(line).toContain("translate skipped 5")
  })

  it("formats durations", () => {
    expect([formatDuration(45), formatDuration(182), formatDuration(7500)]).toEqual(["45s", "3m02s", "2h05m"])
  })
})

describe("StatusLine", () => {
  it("prints a notice on its own line and draws the live line again under it", () => {
    let written = ""
    const line = new StatusLine({ write: (t: string) => (written += t) })
    line.draw("processing · 10/100")
    line.notice("svc-batch: SIGINT: stopping")
    line.draw("stopping · 12/100")
    expect(written).toBe(
      "\rprocessing · 10/100\u001b[K\r\u001b[Ksvc-batch: SIGINT: stopping\n\rprocessing · 10/100\u001b[K\rstopping · 12/100\u001b[K"
    )
  })
})
