/**
 * Per-model rate limit: a token bucket refilled at rpm/60 per second. A request without a token
 * gets 429 with Retry-After (whole seconds, at least 1) until the next token.
 */
import { type EmulatorOptions, rpmFor } from "./options.ts"

interface Bucket {
  tokens: number
  last: number
  readonly perMs: number
  readonly capacity: number
}

export interface RateDecision {
  readonly allowed: boolean
  readonly rpm: number
  readonly retryAfterSeconds: number
}

export const makeRateLimiter = (options: Pick<EmulatorOptions, "rpm" | "burst">, now: () => number = Date.now) => {
  const buckets = new Map<string, Bucket>()
  return (model: string): RateDecision | undefined => {
    const rpm = rpmFor(options.rpm, model)
    if (rpm === undefined || rpm <= 0) return undefined
    let b = buckets.get(model)
    const t = now()
    if (b === undefined) {
      const capacity = options.burst ?? Math.max(1, Math.ceil(rpm / 60))
      b = { tokens: capacity, last: t, perMs: rpm / 60_000, capacity }
      buckets.set(model, b)
    }
    b.tokens = Math.min(b.capacity, b.tokens + (t - b.last) * b.perMs)
    b.last = t
    if (b.tokens >= 1) {
      b.tokens -= 1
      return { allowed: true, rpm, retryAfterSeconds: 0 }
    }
    return { allowed: false, rpm, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / b.perMs / 1000)) }
  }
}
