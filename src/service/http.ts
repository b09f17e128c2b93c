/**
 * The HTTP client under TextService: undici with a dispatcher built from ServiceConfig. Per-attempt
 * timeouts live in the dispatcher (headersTimeout: until the response head; bodyTimeout: longest
 * silence inside a body) rather than in an Effect race per request, which measured at a third of
 * the client's CPU per call (README, performance).
 */
import type { HttpClient } from "@effect/platform"
import { Effect, Layer } from "effect"
import type { ServiceConfig } from "./config.ts"

/** HttpClient for TextService; needs ServiceConfig. undici is loaded when the layer is built. */
export const httpClientLayer: Layer.Layer<HttpClient.HttpClient, never, ServiceConfig> = Layer.unwrapEffect(
  Effect.promise(() => import("./http-undici.ts")).pipe(Effect.map((m) => m.undiciClientLayer))
)

const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"])

/** True when an HttpClient error was caused by one of the dispatcher's timeouts. */
export const isTimeout = (error: { readonly cause?: unknown }): boolean => {
  let cause: unknown = error.cause
  for (let depth = 0; depth < 4 && typeof cause === "object" && cause !== null; depth++) {
    if ("code" in cause && TIMEOUT_CODES.has(String(cause.code))) return true
    cause = (cause as { cause?: unknown }).cause
  }
  return false
}
