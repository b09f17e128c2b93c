/**
 * Progress, on stderr (stdout stays for results). On a terminal: one live line, redrawn four
 * times a second, that always fits the terminal's width; notices (a stop asked) go on their own
 * line above it. Anywhere else (cron, CI): a log line every 5 s and at each change of phase,
 * through Effect's logger, so `--log-level` governs it.
 *
 * The line is a pure function of a snapshot and a width (`renderProgress`), tested directly.
 * Its ETA is this invocation's own rate over what is left: records an earlier invocation of a
 * resumed run finished count neither as left nor as speed.
 */
import { Duration, Effect, FiberRef, LogLevel, Schedule } from "effect"
import type { RunPhase, RunStats, RunStatsSnapshot } from "./run-stats.ts"
import { thousands } from "./thousands.ts"

export interface ProgressSnapshot {
  readonly counters: RunStatsSnapshot
  readonly phase: RunPhase
  readonly phaseStartedAt: number
  /** When this invocation's processing pass began. */
  readonly processingStartedAt: number | undefined
  /** Records an earlier invocation of this run finished. */
  readonly carried: number
  /** Input rows through the output pass. */
  readonly written: number
  readonly now: number
  /** Whether answers are reused (with `cache: off` there are no cache hits to show). */
  readonly cache: boolean
}

export const progressSnapshot = (stats: RunStats, cache: boolean, now = Date.now()): ProgressSnapshot => ({
  counters: stats.snapshot(),
  ...stats.progress(),
  now,
  cache
})

/** Records finished by this invocation (not those found finished by an earlier one). */
const processedHere = (c: RunStatsSnapshot) => c.done + c.failed - c.skipped

/** This invocation's records per second; undefined before there is anything to measure. */
export const progressRate = (s: ProgressSnapshot): number | undefined => {
  if (s.processingStartedAt === undefined) return undefined
  const seconds = (s.now - s.processingStartedAt) / 1000
  const processed = processedHere(s.counters)
  return seconds >= 1 && processed > 0 ? processed / seconds : undefined
}

/** Seconds left at this invocation's rate, while processing; undefined when unknown. */
export const progressEta = (s: ProgressSnapshot): number | undefined => {
  if (s.phase !== "processing" || s.counters.total <= 0) return undefined
  const rate = progressRate(s)
  const left = s.counters.total - s.carried - processedHere(s.counters)
  return rate === undefined || left <= 0 ? undefined : Math.ceil(left / rate)
}

/** 45s, 3m02s, 2h05m. */
export const formatDuration = (seconds: number): string => {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`
}

const count = thousands

interface Part {
  readonly text: string
  /** Lower is kept longer when the line must shrink; 0 is never dropped. */
  readonly rank: number
}

/** The parts of the line, in display order. */
const parts = (s: ProgressSnapshot): Array<Part> => {
  const c = s.counters
  const elapsed = formatDuration((s.now - s.phaseStartedAt) / 1000)
  if (s.phase === "reading")
    return [
      { text: "reading input", rank: 0 },
      { text: elapsed, rank: 1 }
    ]
  const total = c.total > 0 ? `${c.totalIsEstimate ? "~" : ""}${count(c.total)}` : "?"
  if (s.phase === "writing") {
    const rows = c.total > 0 ? `${count(s.written)}/${count(c.total + c.readRejects)} rows` : `${count(s.written)} rows`
    return [
      { text: "writing output", rank: 0 },
      { text: rows, rank: 0 },
      { text: elapsed, rank: 1 }
    ]
  }
  const rate = progressRate(s)
  const eta = progressEta(s)
  const out: Array<Part> = [
    { text: s.phase, rank: 0 },
    { text: `${count(c.done + c.failed)}/${total}`, rank: 0 },
    ...(c.failed > 0 ? [{ text: `${count(c.failed)} failed`, rank: 1 }] : []),
    ...(s.phase === "stopping" ? [{ text: "finishing requests in flight", rank: 1 }] : []),
    ...(eta !== undefined ? [{ text: `ETA ${formatDuration(eta)}`, rank: 2 }] : []),
    ...(rate !== undefined ? [{ text: `${rate >= 100 ? Math.round(rate) : rate.toFixed(1)} rec/s`, rank: 3 }] : []),
    { text: `requests ${count(c.requests)}`, rank: 4 },
    ...(s.cache ? [{ text: `cache hits ${count(c.cacheHits)}`, rank: 5 }] : []),
    { text: `429s ${count(c.rateLimited)}`, rank: 6 },
    { text: `retries ${count(c.retries)}`, rank: 7 },
    ...Object.entries(c.stages).map(([k, v]) => ({ text: `${k.replaceAll("_", " ")} ${count(v)}`, rank: 8 }))
  ]
  return out
}

const BAR_MIN = 10
const BAR_MAX = 30

const bar = (fraction: number, width: number) => {
  const inner = width - 2
  const full = Math.max(0, Math.min(inner, Math.floor(fraction * inner)))
  return `[${"#".repeat(full)}${"-".repeat(inner - full)}]`
}

/**
 * The progress line for a terminal `width` columns wide: never longer than width − 1 (a line
 * that reaches the last column wraps on some terminals). The least useful parts go first when
 * it must shrink; the phase and the counters stay. A bar only when there is room to spare.
 * Without a width (a log line): every part, no bar.
 */
export const renderProgress = (s: ProgressSnapshot, width?: number): string => {
  const all = parts(s)
  if (width === undefined || !Number.isFinite(width)) return all.map((p) => p.text).join(" · ")
  const max = Math.max(1, width - 1)
  const kept = [...all]
  const length = (ps: ReadonlyArray<Part>) => ps.map((p) => p.text).join(" · ").length
  while (length(kept) > max) {
    const worst = kept.reduce((w, p, i) => (p.rank > kept[w]!.rank || (p.rank === kept[w]!.rank && i > w) ? i : w), 0)
    if (kept[worst]!.rank === 0) break
    kept.splice(worst, 1)
  }
  let line = kept.map((p) => p.text).join(" · ")
  const c = s.counters
  // Room kept for the ETA and rate that appear after the first second, so the bar does not come and go.
  const pending = s.phase === "processing" && progressRate(s) === undefined ? " · ETA 00m00s · 00.0 rec/s".length : 0
  const room = max - line.length - 1 - pending
  if (
    (s.phase === "processing" || s.phase === "stopping") &&
    c.total > 0 &&
    kept.length === all.length &&
    room >= BAR_MIN
  ) {
    // Where the counters end: after the phase and the done/total part.
    const head = `${kept[0]!.text} · ${kept[1]!.text}`
    line = `${head} ${bar((c.done + c.failed) / c.total, Math.min(BAR_MAX, room))}${line.slice(head.length)}`
  }
  return line.length > max ? line.slice(0, max) : line
}

/**
 * The live line on a terminal, and notices printed above it (so a redraw never overwrites them).
 * One per process: the signal handler's notice must find the line the run is drawing.
 */
export class StatusLine {
  private shown: string | undefined
  constructor(private readonly stream: { write(text: string): unknown }) {}
  draw(text: string) {
    this.shown = text
    this.stream.write(`\r${text}\u001b[K`)
  }
  /** A line of its own, above the live line (which is drawn again under it). */
  notice(text: string) {
    if (this.shown === undefined) {
      this.stream.write(`${text}\n`)
      return
    }
    this.stream.write(`\r\u001b[K${text}\n`)
    this.draw(this.shown)
  }
  clear() {
    if (this.shown !== undefined) this.stream.write("\r\u001b[K")
    this.shown = undefined
  }
}

export const statusLine = new StatusLine(process.stderr)

/** Prints a notice on stderr on its own line, above the live progress line if one is drawn. */
export const notice = (text: string) => statusLine.notice(text)

export interface ProgressOptions {
  /** Draw a live line (stderr is a terminal); else log lines. */
  readonly tty: boolean
  /** Whether answers are reused (cache not off). */
  readonly cache: boolean
  /** The terminal's width now (it may change while the run goes). */
  readonly columns?: () => number | undefined
}

/** Shows progress while the enclosing scope lives; the live line is cleared when it closes. */
export const reportProgress = (stats: RunStats, options: ProgressOptions) =>
  Effect.gen(function* () {
    const snapshot = () => progressSnapshot(stats, options.cache)
    // `--log-level warning` (or higher) keeps the progress quiet, on a terminal too.
    const minimum = yield* FiberRef.get(FiberRef.currentMinimumLogLevel)
    const quiet = LogLevel.greaterThan(minimum, LogLevel.Info)
    if (!options.tty || quiet) {
      let lastPhase: RunPhase | undefined
      let lastLog = Date.now()
      yield* Effect.forkScoped(
        Effect.suspend(() => {
          const s = snapshot()
          if (s.phase === lastPhase && s.now - lastLog < 5000) return Effect.void
          const first = lastPhase === undefined
          lastPhase = s.phase
          lastLog = s.now
          // The run's own first lines say it started; a log line when something changed.
          if (first && s.phase === "reading") return Effect.void
          // The counters ride along as annotations: `--log-format json` prints them as fields.
          const c = s.counters
          return Effect.logInfo(renderProgress(s)).pipe(
            Effect.annotateLogs({
              event: "progress",
              phase: s.phase,
              counters: {
                total: c.total,
                done: c.done,
                failed: c.failed,
                skipped: c.skipped,
                requests: c.requests,
                cacheHits: c.cacheHits,
                retries: c.retries,
                rateLimited: c.rateLimited,
                tokens: c.tokens
              }
            })
          )
        }).pipe(Effect.repeat(Schedule.spaced(Duration.millis(250))))
      )
      return
    }
    const columns = options.columns ?? (() => process.stderr.columns)
    yield* Effect.addFinalizer(() => Effect.sync(() => statusLine.clear()))
    yield* Effect.forkScoped(
      Effect.sync(() => statusLine.draw(renderProgress(snapshot(), columns() ?? 80))).pipe(
        Effect.repeat(Schedule.spaced(Duration.millis(250)))
      )
    )
  })

/** The run's closing counters. */
export const summaryLine = (stats: RunStats, options: { readonly cache: boolean } = { cache: true }) => {
  const c = stats.snapshot()
  const stages = Object.entries(c.stages)
    .map(([k, v]) => `, ${k.replaceAll("_", " ")} ${v}`)
    .join("")
  const total = c.total > 0 ? `${c.totalIsEstimate ? "~" : ""}${c.total}` : "?"
  const cache = options.cache ? `, cache hits ${c.cacheHits}` : ""
  return `${c.done + c.failed}/${total} records (${c.failed} failed, ${c.skipped} already done); requests ${c.requests}${cache}, retries ${c.retries}, 429s ${c.rateLimited}${stages}`
}
