/**
 * The HTTP client under TextService: undici with a dispatcher built from ServiceConfig. Per-attempt
 * timeouts live in the dispatcher (headersTimeout: until the response head; bodyTimeout: longest
 * silence inside a body) rather than in an Effect race per request, which measured at a third of
 * the client's CPU per call (README, performance).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Duration, Effect, Layer } from "effect"
import { Agent } from "undici"
import { ServiceConfig } from "./config.ts"

export const dispatcherLayer = Layer.scoped(
  NodeHttpClient.Dispatcher,
  Effect.gen(function* () {
    const config = yield* ServiceConfig
    const headersTimeout = Duration.toMillis(config.timeout)
    const bodyTimeout = Duration.toMillis(config.streamIdleTimeout)
    const agent = yield* Effect.acquireRelease(
      Effect.sync(() => new Agent({ headersTimeout, bodyTimeout, keepAliveTimeout: 10_000 })),
      (agent) => Effect.promise(() => agent.destroy())
    )
    // @effect/platform-node's undici client sets headersTimeout 1 h and bodyTimeout 0 on every
    // request ("leave timeouts to Effect.timeout"); put ours back at dispatch time.
    return agent.compose((dispatch) => (options, handler) => dispatch({ ...options, headersTimeout, bodyTimeout }, handler))
  })
)

/** HttpClient for TextService; needs ServiceConfig. */
export const httpClientLayer = NodeHttpClient.layerUndiciWithoutDispatcher.pipe(Layer.provide(dispatcherLayer))

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
