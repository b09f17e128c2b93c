/**
 * Load for the shared rate (the slow test and bench:shared-rate): several "jobs", each with its own
 * dispatcher and its own shared-rate store (its own PostgreSQL pool, as a worker has), sending
 * svc3-guard requests to one emulator (`svc-batch emulator`, a process of its own, so its clock
 * and event loop are not the clients') until a deadline. Answers are counted by the clients.
 */
import { Clock, Effect, Redacted } from "effect"
import { openSharedRate } from "../../src/cluster/shared-rate.ts"
import { defaultRetryPolicy, makeDispatcher } from "../../src/engine/flow/dispatcher.ts"
import type { DiscoveredRate } from "../../src/engine/flow/rate-discovery.ts"
import { TextService } from "../../src/service/client.ts"
import { spawnCli } from "../cli/spawn-cli.ts"

export interface LoadOptions {
  readonly pgUrl: string
  readonly jobs: number
  /** The emulator's limit for svc3-guard (requests per minute). */
  readonly limitRpm: number
  /** The jobs' limits.rpm (undefined: every job discovers the rate). */
  readonly rpm: number | undefined
  readonly seconds: number
  /** Seconds at the start left out of the rates (first connections, modules loaded on first use). */
  readonly warmUp?: number
  /** Requests each job keeps going (its workers). */
  readonly concurrency?: number
}

export interface LoadResult {
  readonly accepted: number
  readonly rejected: number
  /** Accepted requests per minute over the load after its warm-up (answers up to its deadline). */
  readonly acceptedRpm: number
  /** The same over its second half (discovery has converged by then). */
  readonly lateRpm: number
  readonly perJob: ReadonlyArray<number>
  /** Each job's view of the discovered rate at the end (undefined with an rpm). */
  readonly discovered: ReadonlyArray<DiscoveredRate | undefined>
}

const KEY = "shared-rate-key"

/** An emulator process limiting svc3-guard to `rpm`, stopped with the scope. */
const emulatorProcess = (rpm: number) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const p = spawnCli([
        "emulator",
        "--port",
        "0",
        "--api-key",
        KEY,
        "--rpm",
        `svc3-guard=${rpm}`,
        "--latency-ms",
        "20",
        "--jitter-ms",
        "10"
      ])
      const [, url] = await p.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/)
      return { url: url!, p }
    }),
    ({ p }) =>
      Effect.promise(() => {
        p.child.kill("SIGTERM")
        return p.exited
      })
  )

export const sharedLoad = (options: LoadOptions) =>
  Effect.scoped(
    Effect.gen(function* () {
      const emulator = yield* emulatorProcess(options.limitRpm)
      const answered: Array<number> = []
      let rejected = 0
      const perJob = Array.from({ length: options.jobs }, () => 0)
      const discovered: Array<DiscoveredRate | undefined> = []
      // Every job opens its store first; the load starts for all at once.
      const jobs = yield* Effect.forEach(perJob, () => openSharedRate({ url: Redacted.make(options.pgUrl) }))
      const start = yield* Clock.currentTimeMillis
      const deadline = start + options.seconds * 1000
      yield* Effect.forEach(
        jobs,
        (store, j) =>
          Effect.gen(function* () {
            const rates = new Map<string, () => DiscoveredRate | undefined>()
            const dispatcher = yield* makeDispatcher(
              {
                rpm: options.rpm === undefined ? {} : { "svc3-guard": options.rpm },
                maxConcurrency: 64,
                retry: defaultRetryPolicy,
                baseUrl: emulator.url,
                sharedRate: store
              },
              {
                request: () => undefined,
                retry: () => undefined,
                rateLimited: () => void rejected++,
                watchRate: (model, read) => void rates.set(model, read)
              }
            )
            const service = yield* TextService
            let n = 0
            const worker = Effect.gen(function* () {
              while ((yield* Clock.currentTimeMillis) < deadline) {
                yield* dispatcher.send("svc3-guard", service.moderate(`record ${j}-${n++} is fine`))
                answered.push(yield* Clock.currentTimeMillis)
                perJob[j]!++
              }
            })
            yield* Effect.all(
              Array.from({ length: options.concurrency ?? 16 }, () => worker),
              { concurrency: "unbounded", discard: true }
            )
            discovered[j] = rates.get("svc3-guard")?.()
          }).pipe(Effect.scoped, Effect.provide(TextService.layer({ baseUrl: emulator.url, apiKey: KEY }))),
        { concurrency: "unbounded", discard: true }
      )
      const within = (from: number) => answered.filter((t) => t >= from && t < deadline).length
      const measured = start + (options.warmUp ?? 2) * 1000
      const half = start + (deadline - start) / 2
      return {
        accepted: answered.length,
        rejected,
        acceptedRpm: (within(measured) * 60_000) / (deadline - measured),
        lateRpm: (within(half) * 60_000) / (deadline - half),
        perJob,
        discovered
      } satisfies LoadResult
    })
  )
