/**
 * Stops a run that can only fail: when `threshold` requests in a row fail for good with a cause
 * no retry or record can fix — 404 (a wrong base URL), the service unreachable (refused, DNS, TLS,
 * reset), timeouts, 5xx after every retry, 2xx answers that are not the API's wire shape (not JSON, or
 * JSON that does not match the response's Schema: a web page or a proxy at that URL) — the job aborts (exit 3, resumable) with one line
 * naming the cause and the likely fix, instead of spending the night failing every record (and
 * paying for what does get through). A success closes the count again. Failures of one record's
 * own making (400, 413) never count, nor answers that are the service's own: structured output not
 * conforming to its schema (StructuredOutputError), an unparseable verdict (ModerationParseError).
 */
import type { Outage } from "../../service/errors.ts"
import type { RequestFailed } from "./retry.ts"

const advice = (outage: Outage, detail: string, n: number, baseUrl: string | undefined): string => {
  switch (outage) {
    case "not-the-api":
      return `${n} answers in a row were 2xx but not the service's JSON (${detail.replace(/^unexpected response body from \w+: /, "")}) — ${baseUrl === undefined ? "the base URL" : `SVC_BASE_URL ${baseUrl}`} does not look like the text service's API: it is the service's root, e.g. https://host (without /v1), not a web page or a proxy's`
    case "not-found":
      return `${n} requests in a row were answered 404 Not Found (${detail}): is SVC_BASE_URL right? It is the service's root, e.g. https://host — without /v1, which the client adds`
    case "unreachable":
      return `${n} requests in a row could not reach the service (${detail}): check SVC_BASE_URL, the network and the service's status`
    case "timeout":
      return `${n} requests in a row timed out (${detail}): the service is not answering; check its status, or raise SVC_TIMEOUT_MS`
    case "failing":
      return `${n} requests in a row failed after every retry (${detail}): the service looks down; check its status and run the same command again to resume`
  }
}

export interface CircuitBreaker {
  readonly succeeded: () => void
  /** The reason to abort the run, once the threshold is reached. */
  readonly failed: (error: RequestFailed) => string | undefined
}

/** `baseUrl`: where the requests went, named when the answers are not the API's. */
export const makeCircuitBreaker = (threshold = 10, baseUrl?: string): CircuitBreaker => {
  let streak = 0
  let last: Outage | undefined
  return {
    succeeded: () => {
      streak = 0
    },
    failed: (error) => {
      // The client's error says whether it is systemic and what of (its `systemic` and `outage`
      // fields), not a list of class names. A streak is of one kind of outage.
      if (!error.systemic) {
        streak = 0
        return undefined
      }
      const outage = error.cause.outage ?? "failing"
      streak = outage === last ? streak + 1 : 1
      last = outage
      return streak >= threshold ? advice(outage, error.detail, streak, baseUrl) : undefined
    }
  }
}
