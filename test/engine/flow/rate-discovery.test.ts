/** The rate-discovery controller (pure: times are given), one behaviour per test. */
import { describe, expect, it } from "@effect/vitest"
import { makeRateDiscovery } from "../../../src/engine/flow/rate-discovery.ts"

/**
 * Accepts requests at the controller's own pace from `from` for `ms`, each answered `roundTripMs`
 * after it started; gives the time it ended.
 */
const acceptFor = (d: ReturnType<typeof makeRateDiscovery>, from: number, ms: number, roundTripMs = 100) => {
  let t = from
  while (t < from + ms) {
    d.onSuccess(t, t - roundTripMs)
    t += d.intervalMs(t)
  }
  return t
}

describe("rate discovery", () => {
  it("probing doubles the rate about every 0.35 s while every request is accepted", () => {
    const d = makeRateDiscovery({ initialRate: 10, probeGain: 2 })
    acceptFor(d, 0, 1000)
    // dr/dt = 2 r: e² ≈ 7.4 times in one second (in steps of one success).
    expect(d.state(1000).rpm / 60).toBeGreaterThan(50)
    expect(d.state(1000).rpm / 60).toBeLessThan(90)
    expect(d.state(1000).probing).toBe(true)
  })

  it("an answer faster than probeRoundTripMs grows the rate as many times more: the same share per round trip", () => {
    const grownBy = (roundTripMs: number) => {
      const d = makeRateDiscovery({ initialRate: 10, probeGain: 2, probeRoundTripMs: 100 })
      d.onSuccess(1000, 1000 - roundTripMs)
      return d.state(1000).rpm / 60 - 10
    }
    expect(grownBy(200)).toBeCloseTo(2, 9) // probeGain: as before
    expect(grownBy(100)).toBeCloseTo(2, 9)
    expect(grownBy(10)).toBeCloseTo(20, 9)
    expect(grownBy(0)).toBeCloseTo(200, 9) // a millisecond at least
  })

  it("the first 429 sets the rate under what the service accepted, not what probing sent", () => {
    const d = makeRateDiscovery({ initialRate: 10, decrease: 0.85, windowMs: 2000 })
    // The service accepts 10/s for 2 s while the client has probed up to far more.
    for (let t = 0; t < 2000; t += 100) d.onSuccess(t, t)
    for (let i = 0; i < 200; i++) d.onSuccess(2000, 2000) // probing overshoots (these land in the window too)
    const before = d.state(2000).rpm
    d.onRateLimited(2000, 2000)
    const after = d.state(2000)
    expect(before / 60).toBeGreaterThan(400)
    expect(after.probing).toBe(false)
    // 220 accepted in the 2 s window = 110/s; × 0.85.
    expect(after.rpm / 60).toBeCloseTo(0.85 * 110, 5)
    expect(after.ceilingRpm! / 60).toBeCloseTo(110, 5)
  })

  it("a 429 for a request started before the last decrease does not lower the rate again", () => {
    const d = makeRateDiscovery({ initialRate: 10 })
    acceptFor(d, 0, 2000)
    expect(d.onRateLimited(2000, 1990)).toBe(true)
    const once = d.state(2000).rpm
    // Requests already sent when the first 429 came back: the same overshoot.
    expect(d.onRateLimited(2010, 1995)).toBe(false)
    expect(d.onRateLimited(2020, 1999)).toBe(false)
    expect(d.state(2020).rpm).toBeGreaterThanOrEqual(once) // recovering, not lowered
    expect(d.state(2020).decreases).toBe(1)
  })

  it("a 429 for a request sent after the decrease lowers the rate by the decrease factor", () => {
    const d = makeRateDiscovery({ initialRate: 10, decrease: 0.85 })
    acceptFor(d, 0, 2000)
    d.onRateLimited(2000, 1990)
    const sent = d.state(2500).rpm // recovering: more than just after the decrease
    expect(d.onRateLimited(2500, 2100)).toBe(true)
    expect(d.state(2500).rpm).toBeCloseTo(sent * 0.85, 6)
  })

  it("after a 429 the rate is back where the 429 was met within recoverMs, not 30 s", () => {
    const d = makeRateDiscovery({ initialRate: 100, decrease: 0.9, recoverMs: 3000, windowMs: 2000 })
    for (let t = 0; t < 2000; t += 10) d.onSuccess(t, t) // the service accepted 100/s
    d.onRateLimited(2000, 2000)
    expect(d.state(2000).rpm / 60).toBeCloseTo(90, 5)
    // Fast at first, flat near where the limit most likely is.
    expect(d.state(3000).rpm / 60).toBeGreaterThan(97)
    expect(d.state(5000).rpm / 60).toBeCloseTo(100, 5)
    expect(d.state(6000).rpm / 60).toBeLessThan(100.5)
  })

  it("with no 429 after recovering, the rate climbs faster and faster (a limit measured low is found again)", () => {
    const d = makeRateDiscovery({ initialRate: 100, decrease: 0.9, recoverMs: 3000, windowMs: 2000 })
    for (let t = 0; t < 2000; t += 10) d.onSuccess(t, t)
    d.onRateLimited(2000, 2000)
    // Two and three recoverMs past the plateau: +80 % and +270 %.
    expect(d.state(11_000).rpm / 60).toBeCloseTo(180, 5)
    expect(d.state(14_000).rpm / 60).toBeCloseTo(370, 5)
  })

  it("reports what the service accepted since the first 429 as the rate found, none while probing", () => {
    const d = makeRateDiscovery({ initialRate: 10, increase: 0, decrease: 0.5, windowMs: 1000, averageMs: 10_000 })
    acceptFor(d, 0, 1000)
    expect(d.state(1000).suggestedRpm).toBeUndefined()
    for (let t = 1000; t < 2000; t += 100) d.onSuccess(t, t) // 10/s accepted in the last second
    d.onRateLimited(2000, 2000) // paced at 5/s from here
    // The service accepts 4/s (the paced 5/s is more than it takes): found 4/s = 240/min.
    for (let t = 2250; t <= 62_000; t += 250) d.onSuccess(t, t - 100)
    expect(d.state(62_000).suggestedRpm).toBeGreaterThanOrEqual(235)
    expect(d.state(62_000).suggestedRpm).toBeLessThanOrEqual(246) // an event just counted weighs 1/averageMs
  })

  it("a Retry-After longer than the measuring window pauses every worker; a short one does not", () => {
    const d = makeRateDiscovery({ windowMs: 2000 })
    expect(d.pausesAll(1000)).toBe(false)
    expect(d.pausesAll(30_000)).toBe(true)
  })
})
