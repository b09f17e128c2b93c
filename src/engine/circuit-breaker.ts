/**
 * Stops a run that can only fail: when `threshold` requests in a row fail for good with a cause
 * no retry or record can fix — 404 (a wrong base URL), the service unreachable (refused, DNS, TLS,
 * reset), timeouts, 5xx after every retry — the job aborts (exit 3, resumable) with one line
 * naming the cause and the likely fix, instead of spending the night failing every record (and
 * paying for what does get through). A success closes the count again. Failures of one record's
 * own making (400, 413, invalid structured output) never count.
 */
import type { RequestFailed } from "./retry.ts"

const SYSTEMIC = new Set(["NotFoundError", "TransportError", "TimeoutError", "ServerError", "IncompleteStreamError"])

const advice = (status: string, detail: string, n: number): string => {
  switch (status) {
    case "NotFoundError":
      return `${n} requests in a row were answered 404 Not Found (${detail}): is SVC_BASE_URL right? It is the service's root, e.g. https://host — without /v1, which the client adds`
    case "TransportError":
      return `${n} requests in a row could not reach the service (${detail}): check SVC_BASE_URL, the network and the service's status`
    case "TimeoutError":
      return `${n} requests in a row timed out (${detail}): the service is not answering; check its status, or raise SVC_TIMEOUT_MS`
    default:
      return `${n} requests in a row failed after every retry (${detail}): the service looks down; check its status and run the same command again to resume`
  }
}

export interface CircuitBreaker {
  readonly succeeded: () => void
  /** The reason to abort the run, once the threshold is reached. */
  readonly failed: (error: RequestFailed) => string | undefined
}

export const makeCircuitBreaker = (threshold = 10): CircuitBreaker => {
  let streak = 0
  let cause = ""
  return {
    succeeded: () => {
      streak = 0
    },
    failed: (error) => {
      if (!SYSTEMIC.has(error.status)) {
        streak = 0
        return undefined
      }
      streak = error.status === cause ? streak + 1 : 1
      cause = error.status
      return streak >= threshold ? advice(error.status, error.detail, streak) : undefined
    }
  }
}
