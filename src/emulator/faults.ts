/** Fault injection: one seeded draw per request decides its fate, so a seed replays a drill. */
import { prng } from "./hash.ts"
import type { EmulatorOptions, FaultKind } from "./options.ts"

export interface FaultPlan {
  readonly fault: FaultKind | undefined
  /** Latency for this answer (fixed ± jitter, plus slowMs when slow). */
  readonly delayMs: number
  /** For cut streams: cut cleanly (end without [DONE]) or by resetting the connection. */
  readonly cutByReset: boolean
}

export const makeFaults = (options: EmulatorOptions) => {
  const rand = prng(options.faultSeed ?? 1)
  const latency = options.latencyMs ?? 0
  const jitter = options.jitterMs ?? 0
  const bands: ReadonlyArray<[FaultKind, number]> = [
    ["reset", options.resetRate ?? 0],
    ["500", options.error500Rate ?? 0],
    ["503", options.error503Rate ?? 0],
    ["slow", options.slowRate ?? 0],
    ["cut", options.cutStreamRate ?? 0]
  ]
  const any = bands.some(([, r]) => r > 0)
  return (streaming: boolean): FaultPlan => {
    const base = jitter > 0 ? Math.max(0, latency + (rand() * 2 - 1) * jitter) : latency
    if (!any) return { fault: undefined, delayMs: base, cutByReset: false }
    const roll = rand()
    const cutByReset = rand() < 0.5
    let acc = 0
    for (const [kind, rate] of bands) {
      acc += rate
      if (roll < acc) {
        if (kind === "cut" && !streaming) break
        return { fault: kind, delayMs: kind === "slow" ? base + (options.slowMs ?? 5000) : base, cutByReset }
      }
    }
    return { fault: undefined, delayMs: base, cutByReset }
  }
}
