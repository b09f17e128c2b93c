/**
 * The shared rate's bucket on a throwaway PostgreSQL (test/support/postgres.ts): leases that never
 * overlap, a 429 met by one client pausing or slowing the other, the discovered rate shared. Each
 * client is a store of its own (its own pool), as two workers are.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import { openSharedRate } from "../../src/cluster/shared-rate.ts"
import { defaultRateDiscovery } from "../../src/engine/flow/rate-discovery.ts"
import { startPostgres, type ThrowawayPostgres } from "../support/postgres.ts"

let server: ThrowawayPostgres
let databases = 0
beforeAll(async () => {
  server = await startPostgres()
}, 60_000)
afterAll(() => server?.stop())

const URL = "http://127.0.0.1:9/v1"
const discovery = defaultRateDiscovery
/** Two clients (two pools) on a fresh database. */
const twoClients = Effect.gen(function* () {
  const url = Redacted.make(yield* Effect.promise(() => server.database(`r${++databases}`)))
  const a = yield* openSharedRate({ url })
  const b = yield* openSharedRate({ url })
  return [a.bucket(URL, "svc3-guard"), b.bucket(URL, "svc3-guard")] as const
})
const configured = (successes = 0) => ({ intervalMs: 20, leaseMs: 200, successes, discovery })
const discovering = (successes = 0) => ({ intervalMs: undefined, leaseMs: 200, successes, discovery })

describe("shared rate bucket", () => {
  it.scopedLive("a lease covers ~200 ms of the rate; the next client's lease begins where it ends", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoClients
      const first = yield* a.lease(configured())
      expect(first).toMatchObject({ stepMs: 20, count: 10, ratePerSecond: 50 })
      expect(first.firstInMs).toBeLessThanOrEqual(1)
      const second = yield* b.lease(configured())
      // Consecutive at the cluster's rate: b's first start is a's last + one step (less the time passed).
      expect(second.firstInMs).toBeGreaterThan(200 - 100)
      expect(second.firstInMs).toBeLessThanOrEqual(200)
      const third = yield* a.lease(configured())
      expect(third.firstInMs).toBeGreaterThan(400 - 100)
      expect(third.firstInMs).toBeLessThanOrEqual(400)
    })
  )

  it.scopedLive("a 429 with Retry-After met by one client pauses the other's next lease", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoClients
      yield* b.lease(configured())
      const answer = yield* a.rateLimited({ ...configured(), startedAgoMs: 5, retryAfterMs: 1000 })
      expect(answer.pausedForMs).toBeGreaterThan(990)
      expect(answer.decreased).toBe(false)
      const lease = yield* b.lease(configured())
      expect(lease.firstInMs).toBeGreaterThan(950)
      expect(lease.firstInMs).toBeLessThanOrEqual(1000)
    })
  )

  it.scopedLive("discovering: successes raise the shared rate; one 429 lowers it for both, once per overshoot", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoClients
      const start = yield* a.lease(discovering())
      expect(start).toMatchObject({ ratePerSecond: discovery.initialRate, probing: true, count: 2 })
      // Probing: every success adds probeGain, whichever client reports it.
      yield* a.lease(discovering(5))
      const raised = yield* b.lease(discovering(5))
      expect(raised.ratePerSecond).toBe(discovery.initialRate + 10 * discovery.probeGain)
      yield* Effect.sleep("300 millis")
      const limited = yield* a.rateLimited({ ...discovering(), startedAgoMs: 10, retryAfterMs: 1000 })
      expect(limited.decreased).toBe(true)
      expect(limited.probing).toBe(false)
      // A short Retry-After is the request's own wait when discovering: no pause for the others.
      expect(limited.pausedForMs).toBe(0)
      expect(limited.ratePerSecond).toBeLessThan(raised.ratePerSecond)
      const seen = yield* b.lease(discovering())
      expect(seen).toMatchObject({ probing: false, decreases: 1, ratePerSecond: limited.ratePerSecond })
      expect(seen.stepMs).toBeCloseTo(1000 / limited.ratePerSecond, 6)
      // b's 429 for a request started before a's decrease is the same overshoot: not lowered again.
      const same = yield* b.rateLimited({ ...discovering(), startedAgoMs: 1000, retryAfterMs: undefined })
      expect(same).toMatchObject({ decreased: false, decreases: 1 })
      const next = yield* b.rateLimited({ ...discovering(), startedAgoMs: 0, retryAfterMs: undefined })
      expect(next).toMatchObject({ decreased: true, decreases: 2 })
      expect(next.ratePerSecond).toBeCloseTo(limited.ratePerSecond * discovery.decrease, 6)
    })
  )

  it.scopedLive("a long Retry-After while discovering pauses every client", () =>
    Effect.gen(function* () {
      const [a, b] = yield* twoClients
      yield* a.lease(discovering())
      const answer = yield* a.rateLimited({ ...discovering(), startedAgoMs: 0, retryAfterMs: 5000 })
      expect(answer.pausedForMs).toBeGreaterThan(4990)
      expect((yield* b.lease(discovering())).firstInMs).toBeGreaterThan(4900)
    })
  )

  it.scopedLive("buckets are per (origin, model): another model or another service is not slowed", () =>
    Effect.gen(function* () {
      const url = Redacted.make(yield* Effect.promise(() => server.database(`r${++databases}`)))
      const store = yield* openSharedRate({ url })
      yield* store.bucket(URL, "svc3-guard").rateLimited({ ...configured(), startedAgoMs: 0, retryAfterMs: 3000 })
      expect((yield* store.bucket(URL, "svc3-mini").lease(configured())).firstInMs).toBeLessThan(5)
      expect((yield* store.bucket("http://127.0.0.1:10/v1", "svc3-guard").lease(configured())).firstInMs).toBeLessThan(
        5
      )
      // The same service named with a key in its URL, or a trailing slash, is the same bucket.
      const same = yield* store.bucket("http://user:secret@127.0.0.1:9/v1/", "svc3-guard").lease(configured())
      expect(same.firstInMs).toBeGreaterThan(2900)
    })
  )

  it.scopedLive("a wrong password: unreachable (exit 10), named by host, the password never in the message", () =>
    Effect.gen(function* () {
      const wrong = server.url.replace(server.password, "not-the-password")
      const exit = yield* Effect.exit(openSharedRate({ url: Redacted.make(wrong), connectTimeoutMs: 3000 }))
      const error = Exit.isFailure(exit) ? (exit.cause as { error?: unknown }).error : undefined
      expect(error).toMatchObject({ _tag: "LedgerError", unreachable: true, exitCode: 10 })
      expect((error as Error).message).toContain(`cannot reach PostgreSQL at 127.0.0.1:${server.port}`)
      expect((error as Error).message).not.toContain("not-the-password")
    })
  )
})
