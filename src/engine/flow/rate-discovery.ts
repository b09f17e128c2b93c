/**
 * Rate discovery: with no `limits.rpm` (the spec publishes no numeric limits), the limiter learns
 * a sustainable request rate for a model from the 429s it meets, and paces starts to it.
 *
 * - Probing (slow start): the first `initialBurst` starts go out at once (rate-pacer.ts), and one
 *   more at each of the first `initialBurst` answers (as TCP's first window doubles in a round
 *   trip: only answers earn them). Beside those, the rate starts at `initialRate` and grows by
 *   `probeGain` per success (so by probeGain × rate per second while every request is accepted:
 *   it doubles every ~ln 2 / probeGain seconds) — at round trips of `probeRoundTripMs` or longer.
 *   A shorter round trip grows it as many times faster: an answer's time is how soon an overshoot
 *   is heard of, so the rate may grow the same share per round trip (×1.22 at the defaults) and
 *   overshoot a limit by no more. Against an unlimited service on loopback (round trips of a few
 *   ms) the ramp is over in a fraction of a second; it cost a 50k-record cold run 7–10 % with the
 *   gain per second alone (issue 29), while 100–200 ms round trips probe as before.
 * - A 429 (at most once per overshoot: one for a request started before the last decrease is the
 *   same overshoot, already answered) measures the rate the service *accepted* over the last
 *   `window` (successes started in it): while it rejects some requests, what it accepts is its
 *   limit. The rate falls to `decrease` × the lower of that and the rate sent, and probing ends.
 * - Recovery (CUBIC's curve, in time since the decrease): the rate climbs back to where the 429
 *   was met within `recoverMs`, fast at first and flat near it — where the limit most likely is —
 *   then beyond it slowly, then faster and faster: a limit that rose, or a rate measured low
 *   (a starved event loop sending less than paced), is found again in a few `recoverMs`. The
 *   linear climb of 0.5 % of the ceiling per second this replaced took ~30 s to recover a 429.
 * - Retry-After: the rejected request waits it before it is sent again (the caller's job); a
 *   Retry-After longer than `window` means more than a short overshoot (a spent quota), and then
 *   every worker of the model pauses for it (the limiter's pause).
 * The shared bucket of a cluster (src/cluster/shared-rate-migrations.ts) runs the older linear
 * climb (`increase`, `reprobeAbove`) in SQL from the same settings, and probes per success, not
 * per round trip: its ceiling is an average of the accepted rate filling over the window, which a
 * climb of a fraction of a second leaves low (two jobs learnt 788/min of a 1,200/min limit).
 *
 * Pure state, times in milliseconds from the caller's clock, so it is tested deterministically.
 */

export interface RateDiscoverySettings {
  /** Requests per second to start probing at. */
  readonly initialRate: number
  /** Probing: the rate grows by this × rate per second while nothing is rejected. */
  readonly probeGain: number
  /** Probing: answers faster than this (ms) grow the rate by probeGain × this ÷ their time. */
  readonly probeRoundTripMs: number
  /** The rate's factor on a 429 (multiplicative decrease). */
  readonly decrease: number
  /** After a decrease, the time to climb back to the rate the 429 was met at (ms). */
  readonly recoverMs: number
  /** Starts sent at once before pacing begins. */
  readonly initialBurst: number
  /** Time lost to late starts that is made up at once, at most (ms). */
  readonly slackMs: number
  /** The shared bucket's climb (SQL): this share of the ceiling per second (additive increase). */
  readonly increase: number
  /** Milliseconds over which the accepted rate is measured. */
  readonly windowMs: number
  /** The lowest rate, requests per second. */
  readonly minRate: number
  /** The shared bucket's: a rate this many times the ceiling, reached without a 429, restarts probing. */
  readonly reprobeAbove: number
  /** Time constant of the average reported as the rate found, milliseconds. */
  readonly averageMs: number
}

export const defaultRateDiscovery: RateDiscoverySettings = {
  initialRate: 10,
  probeGain: 2,
  probeRoundTripMs: 100,
  decrease: 0.9,
  recoverMs: 4_000,
  initialBurst: 10,
  slackMs: 250,
  increase: 0.005,
  windowMs: 2_000,
  minRate: 1 / 60,
  reprobeAbove: 1.2,
  averageMs: 60_000
}

/** Probing stops growing the rate here (requests per second). */
const maxProbeRate = 1_000_000

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
  // Recovery: the rate a 429 was met at (the curve's plateau), from the last decrease on.
  let plateau = rate

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
  /** After a decrease: CUBIC's curve through decrease × plateau (now) and the plateau (recoverMs later). */
  const recovered = (now: number) => {
    const x = (now - lastDecreaseAt) / s.recoverMs - 1
    return plateau * (1 + (1 - s.decrease) * x * x * x)
  }
  /** The rate at `now` (recovering, it moves with time). */
  const advance = (now: number) => {
    if (!probing && now > lastChange) setRate(now, recovered(now))
    return rate
  }
  /** Accepted requests per second over the window ending at `now`. */
  const acceptedRate = (now: number) => {
    trim(now)
    const span = Math.min(s.windowMs, now - (firstStart ?? now))
    return span <= 0 ? 0 : (accepted.length - head) / (span / 1000)
  }

  return {
    /** No 429 met yet. */
    probing: () => probing,
    /** Milliseconds between starts at the rate at `now`. */
    intervalMs: (now: number) => 1000 / advance(now),
    /** A request started at `startedAt` was answered. */
    onSuccess: (now: number, startedAt: number) => {
      firstStart ??= startedAt
      accepted.push(startedAt)
      trim(now)
      if (since !== undefined) {
        acceptedEwma = acceptedEwma * Math.exp(-Math.max(0, now - acceptedAt) / s.averageMs) + 1 / s.averageMs
        acceptedAt = now
      }
      if (probing) {
        // The answer's time, at least the clock's grain (a millisecond).
        const roundTrip = Math.max(1, now - startedAt)
        // Capped where no one client's pace binds, so the number stays finite.
        setRate(now, Math.min(maxProbeRate, rate + s.probeGain * Math.max(1, s.probeRoundTripMs / roundTrip)))
      } else advance(now)
    },
    /**
     * A request started at `startedAt` got a 429. Says whether the rate was decreased (false: the
     * same overshoot as an earlier 429, already answered).
     */
    onRateLimited: (now: number, startedAt: number): boolean => {
      firstStart ??= startedAt
      if (startedAt < lastDecreaseAt) return false
      const measured = acceptedRate(now)
      const sent = advance(now)
      // While the service rejects, what it accepts is its limit (or less, when less was sent).
      ceiling = measured > 0 ? measured : sent
      plateau = Math.max(s.minRate, Math.min(sent, ceiling))
      if (since === undefined) {
        since = now
        lastChange = now
        average = plateau
        acceptedAt = now
      }
      probing = false
      setRate(now, s.decrease * plateau)
      lastDecreaseAt = now
      decreases++
      return true
    },
    /** Whether a Retry-After of `ms` should pause every worker (more than a short overshoot). */
    pausesAll: (ms: number) => ms > s.windowMs,
    state: (now: number): DiscoveredRate => {
      advance(now)
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
