/**
 * Rate discovery: with no `limits.rpm` (the spec publishes no numeric limits), the limiter learns
 * a sustainable request rate for a model from the 429s it meets, and paces starts to it.
 *
 * - Probing (slow start): the rate starts at `initialRate` and grows by `probeGain` × rate per
 *   second of successes (each success adds probeGain, so the rate doubles every ~ln 2 / probeGain
 *   seconds while every request is accepted). An unlimited service is thus reached in seconds.
 * - The first 429 ends probing. The rate becomes `decrease` × the rate the service *accepted*
 *   over the last `window` (successes started in it), not the rate sent: when the service rejects
 *   some requests, what it accepts is its limit, so the first estimate is close however far
 *   probing overshot. That accepted rate is the ceiling (measured again at every 429).
 * - Steady (AIMD on the rate): each success adds `increase` × ceiling / rate, i.e. the rate climbs
 *   by `increase` × ceiling per second — a straight line, whatever the scale of the limit; a 429
 *   multiplies the rate by `decrease` (at most once per overshoot: a 429 for a request started
 *   before the last decrease is the same overshoot, already answered).
 * - Retry-After: the rejected request waits it before it is sent again (the caller's job); a
 *   Retry-After longer than `window` means more than a short overshoot (a spent quota), and then
 *   every worker of the model pauses for it (the limiter's pause).
 *
 * Pure state, times in milliseconds from the caller's clock, so it is tested deterministically.
 */

export interface RateDiscoverySettings {
  /** Requests per second to start probing at. */
  readonly initialRate: number
  /** Probing: the rate grows by this × rate per second while nothing is rejected. */
  readonly probeGain: number
  /** The rate's factor on a 429 (multiplicative decrease). */
  readonly decrease: number
  /** Steady: the rate climbs by this share of the ceiling per second (additive increase). */
  readonly increase: number
  /** Milliseconds over which the accepted rate is measured. */
  readonly windowMs: number
  /** The lowest rate, requests per second. */
  readonly minRate: number
  /** Steady: a rate this many times the ceiling, reached without a 429, restarts probing. */
  readonly reprobeAbove: number
  /** Time constant of the average reported as the rate found, milliseconds. */
  readonly averageMs: number
}

export const defaultRateDiscovery: RateDiscoverySettings = {
  initialRate: 10,
  probeGain: 2,
  decrease: 0.85,
  increase: 0.005,
  windowMs: 2_000,
  minRate: 1 / 60,
  reprobeAbove: 1.2,
  averageMs: 60_000
}

export interface DiscoveredRate {
  /** Still probing: no 429 met yet. */
  readonly probing: boolean
  /** The rate starts are paced to now, requests per minute. */
  readonly rpm: number
  /** The rate the service accepted over the window at the last 429 (per minute). */
  readonly ceilingRpm: number | undefined
  /** Decreases so far (one per overshoot). */
  readonly decreases: number
  /**
   * The rate found, per minute: what the service accepted since the first 429, averaged with
   * weights fading over `averageMs` (so the first overshoot does not linger) — at most the paced
   * rate, averaged alike; undefined while probing.
   */
  readonly suggestedRpm: number | undefined
}

export const makeRateDiscovery = (overrides: Partial<RateDiscoverySettings> = {}) => {
  const s: RateDiscoverySettings = { ...defaultRateDiscovery, ...overrides }
  let rate = s.initialRate
  let probing = true
  let ceiling: number | undefined
  let lastDecreaseAt = Number.NEGATIVE_INFINITY
  let decreases = 0
  // Start times of accepted requests within the window (a queue, oldest first).
  const accepted: Array<number> = []
  let head = 0
  // The paced rate, averaged over time since the first decrease (exponentially weighted).
  let since: number | undefined
  let lastChange = 0
  let average = 0
  // Accepted requests per millisecond since the first decrease, exponentially weighted alike.
  let acceptedEwma = 0
  let acceptedAt = 0
  let firstStart: number | undefined

  const trim = (now: number) => {
    while (head < accepted.length && accepted[head]! < now - s.windowMs) head++
    if (head > 1024 && head * 2 > accepted.length) {
      accepted.splice(0, head)
      head = 0
    }
  }
  const setRate = (now: number, next: number) => {
    if (since !== undefined) {
      average = averaged(now)
      lastChange = now
    }
    rate = Math.max(s.minRate, next)
  }
  /** The paced rate averaged with exponentially less weight on the past (time constant averageMs). */
  const averaged = (now: number) => {
    const dt = Math.max(0, now - lastChange)
    return average + (1 - Math.exp(-dt / s.averageMs)) * (rate - average)
  }
  /** Accepted requests per second over the window ending at `now`. */
  const acceptedRate = (now: number) => {
    trim(now)
    const span = Math.min(s.windowMs, now - (firstStart ?? now))
    return span <= 0 ? 0 : (accepted.length - head) / (span / 1000)
  }

  return {
    /** Milliseconds between starts at the current rate. */
    intervalMs: () => 1000 / rate,
    /** A request started at `startedAt` was answered. */
    onSuccess: (now: number, startedAt: number) => {
      firstStart ??= startedAt
      accepted.push(startedAt)
      trim(now)
      if (since !== undefined) {
        acceptedEwma = acceptedEwma * Math.exp(-Math.max(0, now - acceptedAt) / s.averageMs) + 1 / s.averageMs
        acceptedAt = now
      }
      if (probing) setRate(now, rate + s.probeGain)
      else {
        setRate(now, rate + (s.increase * (ceiling ?? rate)) / rate)
        // Well past the ceiling without a 429: the estimate was low (or the limit rose): probe again.
        if (ceiling !== undefined && rate > s.reprobeAbove * ceiling) probing = true
      }
    },
    /**
     * A request started at `startedAt` got a 429. Says whether the rate was decreased (false: the
     * same overshoot as an earlier 429, already answered).
     */
    onRateLimited: (now: number, startedAt: number): boolean => {
      firstStart ??= startedAt
      if (startedAt < lastDecreaseAt) return false
      const measured = acceptedRate(now)
      if (probing) {
        probing = false
        ceiling = measured > 0 ? measured : rate
        setRate(now, s.decrease * Math.min(rate, ceiling))
        if (since === undefined) {
          since = now
          lastChange = now
          average = rate
          acceptedAt = now
        }
      } else {
        // While the service rejects, what it accepts is its limit.
        if (measured > 0) ceiling = measured
        setRate(now, s.decrease * rate)
      }
      lastDecreaseAt = now
      decreases++
      return true
    },
    /** Whether a Retry-After of `ms` should pause every worker (more than a short overshoot). */
    pausesAll: (ms: number) => ms > s.windowMs,
    state: (now: number): DiscoveredRate => {
      let found: number | undefined
      if (since !== undefined) {
        // The service's rate is what it accepted; the paced rate bounds it when demand was lower.
        const elapsed = now - since
        const acceptedRate =
          elapsed > 0
            ? (acceptedEwma * Math.exp(-Math.max(0, now - acceptedAt) / s.averageMs) * 1000) /
              (1 - Math.exp(-elapsed / s.averageMs))
            : rate
        found = Math.min(averaged(now), acceptedRate)
      }
      return {
        probing,
        rpm: rate * 60,
        ceilingRpm: ceiling === undefined ? undefined : ceiling * 60,
        decreases,
        suggestedRpm: found === undefined ? undefined : Math.floor(found * 60)
      }
    }
  }
}

export type RateDiscovery = ReturnType<typeof makeRateDiscovery>
