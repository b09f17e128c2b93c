/**
 * The undici parts of the HTTP client, in their own module so that commands which never call the
 * service (help, status, runs, plan, gc) do not load undici (1 MB of JavaScript) at start-up.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Duration, Effect, Layer } from "effect"
import { Agent, type Dispatcher } from "undici"
import { ServiceConfig } from "./config.ts"
import { PostFailed, type PostJson, ServicePost } from "./post-json.ts"

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
    return agent.compose(
      (dispatch) => (options, handler) => dispatch({ ...options, headersTimeout, bodyTimeout }, handler)
    )
  })
)

const headerText = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  value === undefined || typeof value === "string" ? value : value.join(", ")

/**
 * A JSON POST straight on the dispatcher, its answer read whole as text: no HttpClientRequest,
 * response object or Effect-side body reading per call (a cold embedding backfill's client CPU:
 * docs/performance.md). Interruption aborts the request.
 */
const postJsonWith = (dispatcher: Dispatcher): PostJson => {
  // The service's few URLs, parsed once each.
  const targets = new Map<string, { readonly origin: string; readonly path: string }>()
  const targetOf = (url: string) => {
    let target = targets.get(url)
    if (target === undefined) {
      const parsed = new URL(url)
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search }
      if (targets.size < 64) targets.set(url, target)
    }
    return target
  }
  return (url, authorization, body) =>
    Effect.tryPromise({
      try: async (signal) => {
        const { origin, path } = targetOf(url)
        const response = await dispatcher.request({
          origin,
          path,
          method: "POST",
          headers: { "content-type": "application/json", authorization },
          body,
          signal
        })
        const ok = response.statusCode >= 200 && response.statusCode < 300
        return {
          status: response.statusCode,
          contentType: headerText(response.headers["content-type"]),
          retryAfter: headerText(response.headers["retry-after"]),
          // An error's body is only its message: one that cannot be read leaves the status.
          text: ok ? await response.body.text() : await response.body.text().catch(() => "")
        }
      },
      catch: (cause) => new PostFailed({ message: `Transport error (POST ${url})`, cause })
    })
}

/** HttpClient (streamed answers) and PostJson (every other call) over one dispatcher. */
export const undiciLayer = Layer.merge(
  NodeHttpClient.layerUndiciWithoutDispatcher,
  Layer.effect(ServicePost, Effect.map(NodeHttpClient.Dispatcher, postJsonWith))
).pipe(Layer.provide(dispatcherLayer))
