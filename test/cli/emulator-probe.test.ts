/**
 * The probe of SVC_BASE_URL: a standalone emulator's fingerprint from its header; anything else
 * (no header, a header that is not a fingerprint, nobody listening, no answer in time) is not an
 * emulator, and the probe never fails the run.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { createServer, type RequestListener, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { probeEmulator } from "../../src/cli/emulator-probe.ts"
import { EmulatorHeader } from "../../src/emulator/identity.ts"

/** A loopback server (port 0) for the test's scope. */
const serve = (listener: RequestListener) =>
  Effect.acquireRelease(
    Effect.async<{ server: Server; url: string }>((resume) => {
      const server = createServer(listener)
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
      )
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const seconds = Duration.seconds(5)

describe("probeEmulator", () => {
  it.scoped("reads a standalone emulator's fingerprint from its header, on a GET of the chat endpoint", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const { url } = yield* serve((req, res) => {
        seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "no key"}`)
        res.writeHead(404, { [EmulatorHeader]: "nonconforming-rate=0.5" }).end("{}")
      })
      expect(yield* probeEmulator(url, seconds)).toBe("nonconforming-rate=0.5")
      expect(seen).toEqual(["GET /v1/chat/completions no key"])
    })
  )

  it.scoped("does not use the global fetch (it would load Node's second undici at every run's start)", () =>
    Effect.gen(function* () {
      const { url } = yield* serve((_, res) => res.writeHead(404, { [EmulatorHeader]: "nonconforming-rate=0" }).end())
      const fetch = globalThis.fetch
      yield* Effect.addFinalizer(() => Effect.sync(() => void (globalThis.fetch = fetch)))
      globalThis.fetch = () => Promise.reject(new Error("global fetch used"))
      expect(yield* probeEmulator(url, seconds)).toBe("nonconforming-rate=0")
    })
  )

  it.scoped("is undefined for a server without the header, or with a value that is no fingerprint", () =>
    Effect.gen(function* () {
      const plain = yield* serve((_, res) => res.writeHead(404).end())
      const odd = yield* serve((_, res) => res.writeHead(404, { [EmulatorHeader]: "hello there" }).end())
      expect(yield* probeEmulator(plain.url, seconds)).toBeUndefined()
      expect(yield* probeEmulator(odd.url, seconds)).toBeUndefined()
    })
  )

  it.scoped("does not follow a redirect (the header must be the URL's own)", () =>
    Effect.gen(function* () {
      const emulator = yield* serve((_, res) => res.writeHead(404, { [EmulatorHeader]: "nonconforming-rate=0" }).end())
      const { url } = yield* serve((_, res) =>
        res.writeHead(302, { location: `${emulator.url}/v1/chat/completions` }).end()
      )
      expect(yield* probeEmulator(url, seconds)).toBeUndefined()
    })
  )

  it.scoped("is undefined when nobody listens", () =>
    Effect.gen(function* () {
      const { url, server } = yield* serve((_, res) => res.end())
      yield* Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      expect(yield* probeEmulator(url, seconds)).toBeUndefined()
    })
  )

  it.live("gives up after the timeout when the server never answers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { url } = yield* serve(() => {})
        const t0 = Date.now()
        expect(yield* probeEmulator(url, Duration.millis(200))).toBeUndefined()
        expect(Date.now() - t0).toBeLessThan(4_000)
      })
    )
  )
})
