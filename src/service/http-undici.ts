/**
 * The undici parts of the HTTP client, in their own module so that commands which never call the
 * service (help, status, runs, plan, gc) do not load undici (1 MB of JavaScript) at start-up.
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
    return agent.compose(
      (dispatch) => (options, handler) => dispatch({ ...options, headersTimeout, bodyTimeout }, handler)
    )
  })
)

export const undiciClientLayer = NodeHttpClient.layerUndiciWithoutDispatcher.pipe(Layer.provide(dispatcherLayer))
