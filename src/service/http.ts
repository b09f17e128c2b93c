/**
 * The HTTP client under TextService: undici with a dispatcher built from ServiceConfig. Per-attempt
 * timeouts live in the dispatcher (headersTimeout: until the response head; bodyTimeout: longest
 * silence inside a body) rather than in an Effect race per request, which measured at a third of
 * the client's CPU per call (docs/performance.md).
 */
import { HttpClient, type HttpClientError } from "@effect/platform"
import { Context, Effect, Layer } from "effect"
import { ServiceConfig } from "./config.ts"
import { type PostJson, ServicePost } from "./post-json.ts"

/**
 * HttpClient and PostJson for TextService; needs ServiceConfig. undici (1 MB of JavaScript and
 * Node's own HTTP modules, ~0.1 s) is loaded by the first request, not when the layer is built: a
 * rerun whose answers are all in the ledger sends none and never loads it. Its dispatcher lives
 * in the layer's scope either way.
 */
export const httpClientLayer: Layer.Layer<HttpClient.HttpClient | ServicePost, never, ServiceConfig> =
  Layer.scopedContext(
    Effect.gen(function* () {
      const config = yield* ServiceConfig
      const scope = yield* Effect.scope
      // Once loaded, plain variables: `Effect.cached` alone would take a semaphore per request.
      let client: HttpClient.HttpClient | undefined
      let post: PostJson | undefined
      const load = yield* Effect.cached(
        Effect.promise(() => import("./http-undici.ts")).pipe(
          Effect.flatMap((m) => Layer.buildWithScope(m.undiciLayer, scope)),
          Effect.provideService(ServiceConfig, config),
          Effect.map((context) => {
            client = Context.get(context, HttpClient.HttpClient)
            post = Context.get(context, ServicePost)
          })
        )
      )
      const lazyClient = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
        (request) =>
          client !== undefined
            ? Effect.flatMap(request, client.execute)
            : Effect.zipRight(
                load,
                Effect.flatMap(request, (r) => client!.execute(r))
              ),
        Effect.succeed
      )
      const lazyPost: PostJson = (url, authorization, body) =>
        post !== undefined
          ? post(url, authorization, body)
          : Effect.zipRight(
              load,
              Effect.suspend(() => post!(url, authorization, body))
            )
      return Context.make(HttpClient.HttpClient, lazyClient).pipe(Context.add(ServicePost, lazyPost))
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
