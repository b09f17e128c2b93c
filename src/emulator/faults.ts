/** Fault injection: one seeded draw per request decides its fate, so a seed replays a drill. */
import { prng } from "./hash.ts"
import { knobValue } from "./knobs.ts"
import type { EmulatorOptions, FaultKind } from "./options.ts"

export interface FaultPlan {
  readonly fault: FaultKind | undefined
  /** Latency for this answer (fixed ± jitter, plus slowMs when slow). */
  readonly delayMs: number
  /** For cut streams: cut cleanly (end without [DONE]) or by resetting the connection. */
  readonly cutByReset: boolean
}

export const makeFaults = (options: EmulatorOptions) => {
  const rand = prng(knobValue(options, "faultSeed")!)
  const latency = knobValue(options, "latencyMs")!
  const jitter = knobValue(options, "jitterMs")!
  const bands: ReadonlyArray<[FaultKind, number]> = [
    ["reset", knobValue(options, "resetRate")!],
    ["500", knobValue(options, "error500Rate")!],
    ["503", knobValue(options, "error503Rate")!],
    ["slow", knobValue(options, "slowRate")!],
    ["cut", knobValue(options, "cutStreamRate")!]
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
        return { fault: kind, delayMs: kind === "slow" ? base + knobValue(options, "slowMs")! : base, cutByReset }
      }
    }
    return { fault: undefined, delayMs: base, cutByReset }
  }
}
