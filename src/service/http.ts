/**
 * The HTTP client under TextService: undici with a dispatcher built from ServiceConfig. Per-attempt
 * timeouts live in the dispatcher (headersTimeout: until the response head; bodyTimeout: longest
 * silence inside a body) rather than in an Effect race per request, which measured at a third of
 * the client's CPU per call (docs/performance.md).
 */
import { HttpClient, type HttpClientError } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { ServiceConfig } from "./config.ts"

/**
 * HttpClient for TextService; needs ServiceConfig. undici (1 MB of JavaScript and Node's own HTTP
 * modules, ~0.1 s) is loaded by the first request, not when the layer is built: a rerun whose
 * answers are all in the ledger sends none and never loads it. Its dispatcher lives in the layer's
 * scope either way.
 */
export const httpClientLayer: Layer.Layer<HttpClient.HttpClient, never, ServiceConfig> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.gen(function* () {
    const config = yield* ServiceConfig
    const scope = yield* Effect.scope
    // Once loaded, a plain variable: `Effect.cached` alone would take a semaphore per request.
    let loaded: HttpClient.HttpClient | undefined
    const load = yield* Effect.cached(
      Effect.promise(() => import("./http-undici.ts")).pipe(
        Effect.flatMap((m) => Layer.buildWithScope(m.undiciClientLayer, scope)),
        Effect.provideService(ServiceConfig, config),
        Effect.map((context) => (loaded = Context.get(context, HttpClient.HttpClient)))
      )
    )
    return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
      (request) =>
        loaded !== undefined
          ? Effect.flatMap(request, loaded.execute)
          : Effect.flatMap(load, (c) => Effect.flatMap(request, c.execute)),
      Effect.succeed
    )
  })
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
