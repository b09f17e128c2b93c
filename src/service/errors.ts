/**
 * Typed errors of the client: one per status of spec §7, plus the failures that happen around a
 * request. Each carries the service's `message` where there is one, and says whether retrying the
 * same request can succeed, so the engine decides without knowing statuses.
 * None of them holds a request, headers or the API key.
 */
import { Data, Duration, Option } from "effect"
import { ExitCode } from "../exit-code.ts"

export type Endpoint = "chat" | "rerank" | "embeddings" | "translate"

/**
 * What a systemic failure (one no record can fix) says of the service: its answers are not the
 * API's, it answers 404, it cannot be reached, it does not answer in time, or it keeps failing.
 */
export type Outage = "not-the-api" | "not-found" | "unreachable" | "timeout" | "failing"

/** A request that breaks a documented limit; it was never sent. */
export class InvalidRequestError extends Data.TaggedError("InvalidRequestError")<{
  readonly endpoint: Endpoint
  readonly field: string
  readonly limit: string
}> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return `invalid ${this.endpoint} request: ${this.field}: ${this.limit}`
  }
  get retryable() {
    return false
  }
}

/** 400 */
export class BadRequestError extends Data.TaggedError("BadRequestError")<{
  readonly endpoint: Endpoint
  readonly serviceMessage: string
}> {
  override get message() {
    return `400 Bad Request from ${this.endpoint}: ${this.serviceMessage}`
  }
  get retryable() {
    return false
  }
}

/** 401: every other request would fail too; the engine stops the job. */
export class UnauthorizedError extends Data.TaggedError("UnauthorizedError")<{
  readonly endpoint: Endpoint
  readonly serviceMessage: string
}> {
  /** Every other request would be refused too: the engine stops the job. */
  get abortsJob() {
    return true
  }
  /** Exit 3 when it ends a command: every other request would be refused too. */
  get exitCode() {
    return ExitCode.aborted
  }
  override get message() {
    return `401 Unauthorized from ${this.endpoint}: the API key is missing or invalid (${this.serviceMessage})`
  }
  get retryable() {
    return false
  }
}

/** 404 */
export class NotFoundError extends Data.TaggedError("NotFoundError")<{
  readonly endpoint: Endpoint
  readonly serviceMessage: string
}> {
  /** A cause no record can fix (a wrong URL, the service down or unreachable): counts toward the circuit breaker. */
  get systemic() {
    return true
  }
  /** What the failure says of the service (the circuit breaker's advice names it). */
  get outage(): Outage {
    return "not-found"
  }
  override get message() {
    return `404 Not Found from ${this.endpoint}: ${this.serviceMessage} (is the base URL right?)`
  }
  get retryable() {
    return false
  }
}

/** 413 */
export class PayloadTooLargeError extends Data.TaggedError("PayloadTooLargeError")<{
  readonly endpoint: Endpoint
  readonly serviceMessage: string
}> {
  override get message() {
    return `413 Payload Too Large from ${this.endpoint}: ${this.serviceMessage}`
  }
  get retryable() {
    return false
  }
}

/** 429: a delay, not a failure. `retryAfter` is the server's Retry-After, when it sent one. */
export class RateLimitedError extends Data.TaggedError("RateLimitedError")<{
  readonly endpoint: Endpoint
  readonly serviceMessage: string
  readonly retryAfter: Option.Option<Duration.Duration>
}> {
  /** A delay, not a spent attempt: the limiter slows down and waits. */
  get rateLimited() {
    return true
  }
  override get message() {
    const after = Option.match(this.retryAfter, {
      onNone: () => "",
      onSome: (d) => ` (retry after ${Duration.format(d)})`
    })
    return `429 Too Many Requests from ${this.endpoint}: ${this.serviceMessage}${after}`
  }
  get retryable() {
    return true
  }
}

/** 500, 503 and any other 5xx. 503 means maintenance: the engine pauses the model. */
export class ServerError extends Data.TaggedError("ServerError")<{
  readonly endpoint: Endpoint
  readonly status: number
  readonly serviceMessage: string
  readonly retryAfter: Option.Option<Duration.Duration>
}> {
  /** 503 is maintenance: every worker of the model pauses (for Retry-After when sent). */
  get unavailable() {
    return this.status === 503
  }
  /** A cause no record can fix (a wrong URL, the service down or unreachable): counts toward the circuit breaker. */
  get systemic() {
    return true
  }
  /** What the failure says of the service (the circuit breaker's advice names it). */
  get outage(): Outage {
    return "failing"
  }
  override get message() {
    return `${this.status} Server Error from ${this.endpoint}: ${this.serviceMessage}`
  }
  get retryable() {
    return true
  }
}

/** A status the spec does not list (e.g. 402, 405, 422). */
export class UnexpectedStatusError extends Data.TaggedError("UnexpectedStatusError")<{
  readonly endpoint: Endpoint
  readonly status: number
  readonly serviceMessage: string
}> {
  override get message() {
    return `unexpected status ${this.status} from ${this.endpoint}: ${this.serviceMessage}`
  }
  get retryable() {
    return false
  }
}

/** The connection failed or broke before a response arrived. */
export class TransportError extends Data.TaggedError("TransportError")<{
  readonly endpoint: Endpoint
  readonly detail: string
}> {
  /** A cause no record can fix (a wrong URL, the service down or unreachable): counts toward the circuit breaker. */
  get systemic() {
    return true
  }
  /** What the failure says of the service (the circuit breaker's advice names it). */
  get outage(): Outage {
    return "unreachable"
  }
  override get message() {
    return `transport error calling ${this.endpoint}: ${this.detail}`
  }
  get retryable() {
    return true
  }
}

/** One attempt took longer than the configured timeout. */
export class TimeoutError extends Data.TaggedError("TimeoutError")<{
  readonly endpoint: Endpoint
  readonly after: Duration.Duration
}> {
  /** A cause no record can fix (a wrong URL, the service down or unreachable): counts toward the circuit breaker. */
  get systemic() {
    return true
  }
  /** What the failure says of the service (the circuit breaker's advice names it). */
  get outage(): Outage {
    return "timeout"
  }
  override get message() {
    return `${this.endpoint} request timed out after ${Duration.format(this.after)}`
  }
  get retryable() {
    return true
  }
}

/** A 2xx whose body is not the documented shape. */
/** Decode details quote the payload: at most this many characters of them reach messages, rejects and logs. */
export const MaxDetailChars = 500

/** `detail`, cut to `max` characters with a note of how long it was. */
export const capDetail = (detail: string, max = MaxDetailChars): string =>
  detail.length > max ? `${detail.slice(0, max)}… (${detail.length - max} more characters)` : detail

export class ResponseDecodeError extends Data.TaggedError("ResponseDecodeError")<{
  readonly endpoint: Endpoint
  readonly detail: string
}> {
  /** A cause no record can fix (a wrong URL, the service down or unreachable): counts toward the circuit breaker. */
  get systemic() {
    return true
  }
  /** What the failure says of the service (the circuit breaker's advice names it). */
  get outage(): Outage {
    return "not-the-api"
  }
  constructor(args: { readonly endpoint: Endpoint; readonly detail: string }) {
    super({ ...args, detail: capDetail(args.detail) })
  }
  override get message() {
    return `unexpected response body from ${this.endpoint}: ${this.detail}`
  }
  get retryable() {
    return false
  }
}

/** §4.1 rule 6: a stream that ended (or broke) before `data: [DONE]`. Never a success. */
export class IncompleteStreamError extends Data.TaggedError("IncompleteStreamError")<{
  readonly endpoint: Endpoint
  readonly detail: string
  readonly chunksReceived: number
}> {
  /** A cause no record can fix (a wrong URL, the service down or unreachable): counts toward the circuit breaker. */
  get systemic() {
    return true
  }
  /** What the failure says of the service (the circuit breaker's advice names it). */
  get outage(): Outage {
    return "failing"
  }
  override get message() {
    return `incomplete stream from ${this.endpoint} after ${this.chunksReceived} chunks: ${this.detail}`
  }
  get retryable() {
    return true
  }
}

/** A guard answer that is neither 「安全」 nor 「有害」+codes (§2.7); keeps the raw text. */
export class ModerationParseError extends Data.TaggedError("ModerationParseError")<{
  readonly raw: string
  readonly detail: string
}> {
  override get message() {
    return `unparseable moderation verdict (${this.detail}): ${JSON.stringify(this.raw)}`
  }
  get retryable() {
    return false
  }
}

/** Structured output that does not conform to the requested JSON Schema (§2.4: the client validates). */
export class StructuredOutputError extends Data.TaggedError("StructuredOutputError")<{
  readonly raw: string
  readonly detail: string
}> {
  override get message() {
    return `structured output does not match its schema: ${this.detail}`
  }
  get retryable() {
    return true
  }
}

/** The error of a call that reached (or tried to reach) the service. */
export type ServiceError =
  | InvalidRequestError
  | BadRequestError
  | UnauthorizedError
  | NotFoundError
  | PayloadTooLargeError
  | RateLimitedError
  | ServerError
  | UnexpectedStatusError
  | TransportError
  | TimeoutError
  | ResponseDecodeError

export type ChatStreamError = ServiceError | IncompleteStreamError

/** Retry-After is either delta-seconds or an HTTP date. */
export const parseRetryAfter = (
  header: string | undefined,
  now: number = Date.now()
): Option.Option<Duration.Duration> => {
  if (header === undefined || header.trim() === "") return Option.none()
  const trimmed = header.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Option.some(Duration.seconds(Number(trimmed)))
  const at = Date.parse(trimmed)
  if (Number.isNaN(at)) return Option.none()
  return Option.some(Duration.millis(Math.max(0, at - now)))
}

/** Maps a non-2xx status and its `{message}` to the typed error. */
export const errorForStatus = (
  endpoint: Endpoint,
  status: number,
  serviceMessage: string,
  retryAfterHeader: string | undefined
): ServiceError => {
  switch (status) {
    case 400:
      return new BadRequestError({ endpoint, serviceMessage })
    case 401:
      return new UnauthorizedError({ endpoint, serviceMessage })
    case 404:
      return new NotFoundError({ endpoint, serviceMessage })
    case 413:
      return new PayloadTooLargeError({ endpoint, serviceMessage })
    case 429:
      return new RateLimitedError({ endpoint, serviceMessage, retryAfter: parseRetryAfter(retryAfterHeader) })
    default:
      return status >= 500
        ? new ServerError({ endpoint, status, serviceMessage, retryAfter: parseRetryAfter(retryAfterHeader) })
        : new UnexpectedStatusError({ endpoint, status, serviceMessage })
  }
}
