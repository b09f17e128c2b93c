/**
 * The worker pool's own cost (not a test): 200,000 items in chunks of 512 (the runner's windows)
 * through `runPool` with 256 workers, each item's work ending on a later turn of the event loop
 * (as a request's answer does); beside it the same work through `Effect.forEach` at concurrency
 * 256 (no byte bound, no graceful stop). Prints CPU µs per item.
 *   npm run bench:pool
 */
import { Duration, Effect, Stream } from "effect"
import { runPool } from "../../src/engine/flow/worker-pool.ts"

const n = 200_000
const later = Effect.async<void>((resume) => void setImmediate(() => resume(Effect.void)))
const cpuPerItem = async (run: () => Promise<unknown>) => {
  const c0 = process.cpuUsage()
  await run()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / n
}

for (let round = 1; round <= 3; round++) {
  const pool = await cpuPerItem(() =>
    Effect.runPromise(
      runPool({
        items: Stream.fromIterable(Array.from({ length: n }, (_, i) => ({ i, text: `record ${i}` }))).pipe(
          Stream.rechunk(512)
        ),
        workers: 256,
        process: () => later,
        sizeOf: () => 100,
        maxBytes: 64 * 1024 * 1024,
        stop: Effect.never,
        grace: Duration.seconds(1)
      })
    )
  )
  const forEach = await cpuPerItem(() =>
    Effect.runPromise(
      Effect.forEach(
        Array.from({ length: n }, (_, i) => i),
        () => later,
        { concurrency: 256, discard: true }
      )
    )
  )
  console.log(
    `round ${round}: runPool ${pool.toFixed(1)} CPU µs/item; Effect.forEach ${forEach.toFixed(1)} CPU µs/item`
  )
}
