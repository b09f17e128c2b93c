/**
 * The shared rate end to end: two jobs, each with its own dispatcher and PostgreSQL pool, against
 * one emulator limiting svc3-guard; together they keep the limit, whether it is configured
 * (`limits.rpm` as the cluster's rate) or discovered together.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { startPostgres, type ThrowawayPostgres } from "../support/postgres.ts"
import { sharedLoad } from "./shared-load.ts"

let server: ThrowawayPostgres
beforeAll(async () => {
  server = await startPostgres()
}, 60_000)
afterAll(() => server?.stop())

describe("shared rate against the emulator", () => {
  it.live(
    "two jobs with limits.rpm 3,000 against a 3,000/min limit: together ≤ the limit and ≥ 98 % of it over 24 s, ≤ 0.5 % 429s",
    () =>
      Effect.gen(function* () {
        const pgUrl = yield* Effect.promise(() => server.database("configured"))
        const result = yield* sharedLoad({ pgUrl, jobs: 2, limitRpm: 3000, rpm: 3000, seconds: 26 })
        console.log("shared rate, configured:", JSON.stringify(result))
        // The emulator's bucket holds one second's worth (50), which starts made up after a stall may
        // spend: over the 24 s measured, at most 24 × 50 + 50 accepted.
        expect(result.acceptedRpm).toBeLessThanOrEqual(3000 + (50 * 60) / 24)
        expect(result.acceptedRpm).toBeGreaterThanOrEqual(3000 * 0.98)
        expect(result.rejected / (result.accepted + result.rejected)).toBeLessThanOrEqual(0.005)
        // Both jobs were served (the bucket interleaves their leases).
        for (const n of result.perJob) expect(n).toBeGreaterThan(result.accepted * 0.3)
      }),
    120_000
  )

  it.live(
    "two jobs without limits.rpm share the rate they discover: the same rate seen by both, the limit kept",
    () =>
      Effect.gen(function* () {
        const pgUrl = yield* Effect.promise(() => server.database("discovered"))
        const result = yield* sharedLoad({ pgUrl, jobs: 2, limitRpm: 1200, rpm: undefined, seconds: 20 })
        console.log("shared rate, discovered:", JSON.stringify(result))
        const [a, b] = result.discovered
        expect(a?.probing).toBe(false)
        // One rate for both: what each saw last differs only by the successes reported since.
        expect(Math.abs(a!.rpm - b!.rpm) / a!.rpm).toBeLessThan(0.05)
        // The cluster's rate, not a share of it (two jobs discovering apart learn ~600 each).
        for (const seen of [a!, b!]) {
          expect(seen.rpm).toBeGreaterThan(800)
          expect(seen.rpm).toBeLessThan(1500)
        }
        expect(result.lateRpm).toBeGreaterThan(1200 * 0.75)
        // The emulator's bucket holds one second's worth (20): over the late 10 s, at most 10 × 20 + 20.
        expect(result.lateRpm).toBeLessThanOrEqual(1200 + (20 * 60) / 10)
        expect(result.rejected / (result.accepted + result.rejected)).toBeLessThanOrEqual(0.05)
      }),
    120_000
  )
})
