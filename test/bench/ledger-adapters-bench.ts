/**
 * The ledger's two adapters side by side (not a test): N answers and N records written and
 * flushed, the answers looked up again in windows of 512 (as the processing pass does), the run's
 * statuses read — SQLite in a file, and PostgreSQL in a throwaway cluster on loopback (started
 * here, as the tests start it; scripts/ensure-postgres.sh installs the server when missing).
 *   npm run bench:ledgers [-- 50000]
 */
import { Effect, Redacted, Schema } from "effect"
import { cpus } from "node:os"
import { join } from "node:path"
import type { LedgerService, RecordOutcome } from "../../src/ledger/ledger.ts"
import { makePostgresLedger } from "../../src/ledger/postgres-ledger.ts"
import { makeSqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import { startPostgres } from "../support/postgres.ts"
import { benchDir } from "./bench-dir.ts"

const N = Number(process.argv[2] ?? 50_000)
const WINDOW = 512
const Answer = Schema.Struct({ verdict: Schema.String, categories: Schema.Array(Schema.String) })
const done = (key: string): RecordOutcome => ({ _tag: "Done", output: { keys: [key], rows: [{ v: 1 }] } })

const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const t0 = performance.now()
    const value = yield* effect
    return { value, ms: performance.now() - t0 }
  })

const measure = (ledger: LedgerService) =>
  Effect.gen(function* () {
    const keys = Array.from({ length: N }, (_, i) => `key-${i}`)
    const runId = yield* ledger.startRun("bench", "fingerprint")
    const write = yield* timed(
      Effect.gen(function* () {
        for (let i = 0; i < N; i += WINDOW) {
          const window = keys.slice(i, i + WINDOW)
          for (const key of window)
            yield* ledger.putAnswer({ key, endpoint: "chat", model: "svc3-guard", tokens: 12 }, Answer, {
              verdict: "safe",
              categories: []
            })
          yield* ledger.putRecords(
            runId,
            window.map((key, j) => ({ ordinal: i + j, key, outcome: done(key) }))
          )
        }
        yield* ledger.flush
      })
    )
    const lookup = yield* timed(
      Effect.gen(function* () {
        let found = 0
        for (let i = 0; i < N; i += WINDOW)
          found += (yield* ledger.answersFor(keys.slice(i, i + WINDOW))).filter((a) => a !== undefined).length
        return found
      })
    )
    if (lookup.value !== N) throw new Error(`found ${lookup.value} of ${N} answers`)
    const statuses = yield* timed(ledger.recordStatuses(runId))
    return { write: write.ms, lookup: lookup.ms, statuses: statuses.ms }
  })

const rate = (ms: number) => `${Math.round((N / ms) * 1000).toLocaleString("en")}/s`

const main = Effect.gen(function* () {
  const dir = benchDir("svc-ledgers-")
  const sqlite = yield* Effect.scoped(Effect.flatMap(makeSqliteLedger({ path: join(dir, "ledger.sqlite") }), measure))
  const server = yield* Effect.promise(() => startPostgres())
  const postgres = yield* Effect.scoped(
    Effect.flatMap(
      Effect.flatMap(
        Effect.promise(() => server.database("bench")),
        (url) => makePostgresLedger({ url: Redacted.make(url) })
      ),
      measure
    )
  ).pipe(Effect.ensuring(Effect.promise(() => server.stop())))
  console.log(
    `ledger adapters, ${N.toLocaleString("en")} answers and records; ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}`
  )
  console.log("| adapter | write + flush (answers and records) | lookups, windows of 512 | run's statuses |")
  console.log("|---|---|---|---|")
  for (const [name, m] of [
    ["SQLite (file)", sqlite],
    ["PostgreSQL (loopback)", postgres]
  ] as const)
    console.log(
      `| ${name} | ${Math.round(m.write)} ms (${rate(m.write)}) | ${Math.round(m.lookup)} ms (${rate(m.lookup)}) | ${Math.round(m.statuses)} ms |`
    )
})

Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})
