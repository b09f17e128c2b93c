/**
 * Shared-rate benchmark (not a test), on a throwaway PostgreSQL (test/support/postgres.ts):
 * 1. lease round trips per second on one bucket, from 1, 2 and 4 clients (each its own pool),
 *    each client asking for its next lease as soon as the last is answered, for 3 s;
 * 2. the accepted rate as a share of the limit, and the 429s, with 1, 2 and 4 jobs (each its own
 *    dispatcher and pool) sharing `limits.rpm` 3,000 against one emulator process limited to
 *    3,000/min, for `--seconds` (default 20) each, the first 2 s left out.
 *   npm run bench:shared-rate [-- --seconds 30]
 */
import { Effect, Redacted } from "effect"
import { cpus } from "node:os"
import { openSharedRate } from "../../src/cluster/shared-rate.ts"
import { defaultRateDiscovery } from "../../src/engine/flow/rate-discovery.ts"
import { sharedLoad } from "../cluster/shared-load.ts"
import { startPostgres } from "../support/postgres.ts"

const at = process.argv.indexOf("--seconds")
const seconds = at < 0 ? 20 : Number(process.argv[at + 1])
if (!Number.isFinite(seconds) || seconds <= 2) throw new Error("--seconds takes a number above 2")

const leaseRate = (pgUrl: string, clients: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const buckets = yield* Effect.forEach(Array.from({ length: clients }), () =>
        Effect.map(openSharedRate({ url: Redacted.make(pgUrl) }), (s) => s.bucket("http://bench:1/v1", "svc3-guard"))
      )
      let leases = 0
      const until = Date.now() + 3000
      yield* Effect.forEach(
        buckets,
        (bucket) =>
          Effect.gen(function* () {
            while (Date.now() < until) {
              yield* bucket.lease({ intervalMs: 1, leaseMs: 200, successes: 0, discovery: defaultRateDiscovery })
              leases++
            }
          }),
        { concurrency: "unbounded", discard: true }
      )
      return leases / 3
    })
  )

const main = Effect.gen(function* () {
  const server = yield* Effect.acquireRelease(
    Effect.promise(() => startPostgres()),
    (s) => Effect.promise(() => s.stop())
  )
  console.log(`shared rate bench: ${cpus().length} cores, PostgreSQL on loopback, ${seconds} s per load`)
  console.log("| clients | lease round trips/s | accepted / limit (3,000/min) | 429s |")
  console.log("|---|---|---|---|")
  for (const clients of [1, 2, 4]) {
    const leases = yield* leaseRate(yield* Effect.promise(() => server.database(`leases${clients}`)), clients)
    const pgUrl = yield* Effect.promise(() => server.database(`load${clients}`))
    const load = yield* sharedLoad({ pgUrl, jobs: clients, limitRpm: 3000, rpm: 3000, seconds })
    const share = load.rejected / Math.max(1, load.accepted + load.rejected)
    console.log(
      `| ${clients} | ${Math.round(leases)} | ${(load.acceptedRpm / 3000).toFixed(3)} | ${(share * 100).toFixed(2)} % (${load.rejected}) |`
    )
  }
})

Effect.runPromise(Effect.scoped(main)).catch((e) => {
  console.error(e)
  process.exitCode = 1
})
