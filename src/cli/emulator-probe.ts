/**
 * Asks a SVC_BASE_URL whether it is a standalone emulator (identity.ts): one GET without the key,
 * which the service answers 404 (§4: every endpoint is POST) and an emulator answers with its
 * `x-svc-emulator` header. No answer, or no header: not an emulator — the URL is the origin.
 *
 * Through node:http(s), not the global fetch: fetch loads Node's own copy of undici (a second one
 * beside the client's), +110 ms of CPU at the start of every run with SVC_BASE_URL set (measured on
 * a 20-record job, docs/performance.md); node:http costs ~10 ms. Redirects are not followed either way.
 */
import { Duration, Effect } from "effect"
import type { IncomingMessage } from "node:http"
import { createRequire } from "node:module"
import { EmulatorHeader, fingerprintOf } from "../emulator/identity.ts"

/** At most this long: an unreachable URL is the run's to report, not the probe's. */
const ProbeTimeout = Duration.seconds(5)

/**
 * node:https (TLS) is loaded only for an https URL. Required, not `import()`ed: the bundle is
 * CommonJS run through vm.Script (code-cache.mjs), where a dynamic import has no loader.
 */
const requestOf = (url: URL): typeof import("node:http").request =>
  (createRequire(import.meta.url)(url.protocol === "https:" ? "node:https" : "node:http") as typeof import("node:http"))
    .request

/** The head of the answer to one GET of `url` (its body discarded). */
const head = (url: URL) =>
  Effect.async<IncomingMessage, Error>((resume, signal) => {
    try {
      // A connection of its own (agent: false), closed with the answer: no keep-alive socket left.
      const req = requestOf(url)(url, { method: "GET", agent: false, signal }, (response) => {
        response.resume()
        resume(Effect.succeed(response))
      })
      req.on("error", (e) => resume(Effect.fail(e)))
      req.end()
    } catch (e) {
      resume(Effect.fail(e instanceof Error ? e : new Error(String(e))))
    }
  })

/** The emulator's answer fingerprint, or undefined when `baseUrl` is not a standalone emulator. */
export const probeEmulator = (baseUrl: string, timeout: Duration.Duration): Effect.Effect<string | undefined> =>
  Effect.try(() => new URL(`${baseUrl}/v1/chat/completions`)).pipe(
    Effect.flatMap(head),
    // Interrupted at the deadline: the request is aborted (its signal).
    Effect.timeoutFail({
      duration: Duration.min(timeout, ProbeTimeout),
      onTimeout: () => new Error("probe timed out")
    }),
    Effect.map((r) => {
      const value = r.headers[EmulatorHeader]
      return fingerprintOf(Array.isArray(value) ? value[0] : value)
    }),
    Effect.orElseSucceed(() => undefined)
  )
