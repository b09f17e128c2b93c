/** Live counters of a run, read by progress reporting and saved with the run. */
export interface Counters {
  /** Records in the input (estimate until the read pass ends for CSV). */
  total: number
  totalIsEstimate: boolean
  /** Records finished in this invocation (done or failed), plus those skipped as already done. */
  done: number
  failed: number
  skipped: number
  readRejects: number
  requests: number
  cacheHits: number
  retries: number
  rateLimited: number
  tokens: number
}

export const makeCounters = (): Counters => ({
  total: 0,
  totalIsEstimate: true,
  done: 0,
  failed: 0,
  skipped: 0,
  readRejects: 0,
  requests: 0,
  cacheHits: 0,
  retries: 0,
  rateLimited: 0,
  tokens: 0
})
