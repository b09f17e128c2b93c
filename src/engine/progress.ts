/**
 * Progress: a bar (cli-progress) on a terminal; on anything else (cron, CI), one log line every
 * few seconds. Both on stderr, so stdout stays for results.
 */
import { SingleBar } from "cli-progress"
import { Duration, Effect, Schedule } from "effect"
import type { RunStats, RunStatsSnapshot } from "./run-stats.ts"

/** One line of counters; with `rate` (records/s) also the rate and ETA. */
const line = (c: RunStatsSnapshot, rate?: number) => {
  const finished = c.done + c.failed
  const total = c.total > 0 ? `${c.totalIsEstimate ? "~" : ""}${c.total}` : "?"
  const speed =
    rate === undefined ? "" : `, ${rate.toFixed(1)} rec/s${rate > 0 && c.total > finished ? `, ETA ${Math.ceil((c.total - finished) / rate)}s` : ""}`
  const stages = Object.entries(c.stages).map(([k, v]) => `, ${k.replaceAll("_", " ")} ${v}`).join("")
  return `${finished}/${total} records (${c.failed} failed, ${c.skipped} already done)${speed}; requests ${c.requests}, cache hits ${c.cacheHits}, retries ${c.retries}, 429s ${c.rateLimited}${stages}`
}

export const reportProgress = (stage: string, stats: RunStats, tty: boolean) =>
  Effect.gen(function* () {
    const started = Date.now()
    let counters = stats.snapshot()
    const rate = () => {
      const seconds = (Date.now() - started) / 1000
      return seconds > 0 ? (counters.done + counters.failed - counters.skipped) / seconds : 0
    }
    if (!tty) {
      yield* Effect.forkScoped(
        Effect.sync(() => {
          counters = stats.snapshot()
          console.error(`[${new Date().toISOString()}] ${stage}: ${line(counters, rate())}`)
        }).pipe(
          Effect.repeat(Schedule.spaced(Duration.seconds(5))),
          Effect.delay(Duration.seconds(5))
        )
      )
      return
    }
    const bar = new SingleBar({
      format: `${stage} |{bar}| {value}/{total} {rate} rec/s | failed {failed} | cache {cache} | retries {retries} | 429s {r429} | ETA {eta}s`,
      hideCursor: true,
      stream: process.stderr
    })
    const payload = () => ({
      failed: counters.failed,
      cache: counters.cacheHits,
      retries: counters.retries,
      r429: counters.rateLimited,
      rate: rate().toFixed(1)
    })
    bar.start(Math.max(1, counters.total), 0, payload())
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        counters = stats.snapshot()
        bar.setTotal(Math.max(1, counters.done + counters.failed))
        bar.update(counters.done + counters.failed, payload())
        bar.stop()
      })
    )
    yield* Effect.forkScoped(
      Effect.sync(() => {
        counters = stats.snapshot()
        if (counters.done + counters.failed > counters.total) bar.setTotal(counters.done + counters.failed)
        bar.update(counters.done + counters.failed, payload())
      }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(250))))
    )
  })

export const summaryLine = (stats: RunStats) => line(stats.snapshot())
