/**
 * The coordinator of a cluster run (`run --cluster`): the processing pass distributed. The input,
 * fingerprinted by the run, is cut into units (once per run: a rerun finds them), each unit not
 * yet done is sent to the queue (unless pg-boss still holds it), this process works units too
 * (unless `--no-work`), and it waits until every unit is done. Meanwhile it gives the unit of a
 * worker silent for `staleSeconds` (killed, its machine gone) to another, and stops the run when a
 * unit is refused (a worker cannot read the input, or reads another file), failed every attempt,
 * or aborted (the breaker). The runner then writes the output from the shared ledger as a single
 * run does.
 */
import { Deferred, Duration, Effect, Fiber, Option, type Redacted } from "effect"
import { cutUnits, type Format, openSource } from "../io/sources/index.ts"
import type { SourceOptions } from "../io/source.ts"
import { sourceColumns } from "../io/input-access.ts"
import { JobAborted } from "../engine/flow/dispatcher.ts"
import { readShape } from "../engine/records/processing-pass.ts"
import { UnitFailed } from "../engine/records/process-unit.ts"
import type { Distribute } from "../engine/runner.ts"
import type { Ledger } from "../ledger/ledger.ts"
import type { RunStats } from "../engine/run-stats.ts"
import type { ClusterSettings } from "./cluster-settings.ts"
import { makeUnitBoard, type UnitRow } from "./unit-board.ts"
import type { UnitPayload } from "./unit-payload.ts"
import { makeUnitQueue } from "./unit-queue.ts"
import { runWorker, type WorkerOptions } from "./worker.ts"

export interface CoordinatorSettings {
  readonly url: Redacted.Redacted<string>
  readonly cluster: ClusterSettings
  readonly job: string
  readonly jobFile: string
  readonly overrides: Readonly<Record<string, unknown>>
  readonly input: string
  readonly format: Format
  readonly sourceOptions: SourceOptions
  /** Work units in this process too (the default), with this many slots. */
  readonly work: Pick<WorkerOptions<Ledger>, "work" | "told"> | undefined
  readonly stop: Effect.Effect<void>
  readonly stats: RunStats
  /** How often the units are looked at (ms). */
  readonly pollMs?: number
}

/** pg-boss states in which a unit is still on its way to a worker or with one. */
const LIVE = new Set(["created", "retry", "active"])

export const coordinate =
  (s: CoordinatorSettings): Distribute =>
  (run) =>
    Effect.scoped(
      Effect.gen(function* () {
        const board = yield* makeUnitBoard(s.url)
        const queue = yield* makeUnitQueue(s.url, { supervise: true })
        const { runId } = run
        let units = yield* board.units(runId)
        if (units.length === 0) {
          const cut = yield* cutUnits(s.input, s.format, s.cluster.unitRecords, s.sourceOptions)
          yield* board.addUnits(runId, s.job, cut)
          units = yield* board.units(runId)
          yield* Effect.logInfo(`input cut into ${units.length} units of about ${s.cluster.unitRecords} records`)
        }
        const heartbeatMs = Math.max(200, Math.floor((s.cluster.staleSeconds * 1000) / 4))
        const payloadOf = (index: number) =>
          Effect.map(board.unitOf(runId, index), (unit): UnitPayload => ({
            runId,
            index,
            jobFile: s.jobFile,
            overrides: { ...s.overrides },
            input: s.input,
            format: s.format,
            fingerprint: run.fingerprint,
            unit,
            startedAt: run.startedAt,
            retryFailed: run.retryFailed,
            retryLimit: s.cluster.retryLimit,
            heartbeatMs
          }))
        // Every unit not done goes to the queue, unless pg-boss still holds it (a rerun while workers work).
        let sent = 0
        for (const u of units) {
          if (u.state === "done") continue
          if (u.bossId !== null && (u.state === "queued" || u.state === "active")) {
            const state = yield* queue.state(u.bossId)
            if (state !== undefined && LIVE.has(state)) continue
          }
          const id = yield* queue.send(yield* payloadOf(u.index), s.cluster.retryLimit)
          yield* board.queued(runId, u.index, id)
          sent++
        }
        const done = units.filter((u) => u.state === "done").length
        yield* Effect.logInfo(`units: ${done} done before, ${sent} sent, ${units.length - done - sent} with workers`)

        // This process works units too: stopped once the run's units are all done.
        const allDone = yield* Deferred.make<void>()
        const localStop = Effect.race(s.stop, Deferred.await(allDone))
        const local =
          s.work === undefined
            ? undefined
            : yield* Effect.forkIn(
                runWorker({ board, queue, concurrency: 1, stop: localStop, pollMs: 200, ...s.work }),
                yield* Effect.scope
              )

        const failedUnit = (u: UnitRow) =>
          new UnitFailed({
            unit: u.index,
            worker: u.worker ?? undefined,
            detail: u.message ?? (u.state === "refused" ? "refused by a worker" : "failed on every attempt")
          })
        const pollMs = s.pollMs ?? 500
        let stopped = false
        let lastDone = -1
        let lastLost = Date.now()
        const stopSeen = yield* Effect.fork(
          Effect.zipRight(
            s.stop,
            Effect.sync(() => void (stopped = true))
          )
        )
        const outcome = yield* Effect.gen(function* () {
          while (!stopped) {
            const rows = yield* board.units(runId)
            const bad = rows.find((u) => u.state === "refused" || u.state === "failed")
            if (bad !== undefined) return Option.some<UnitFailed | JobAborted>(failedUnit(bad))
            const aborted = rows.find((u) => u.state === "aborted")
            if (aborted !== undefined)
              return Option.some<UnitFailed | JobAborted>(new JobAborted({ reason: aborted.message ?? "aborted" }))
            // A worker silent for too long (killed, its machine gone): its unit goes to another now.
            for (const u of rows) {
              if (u.state !== "active" || u.silentFor === null || u.silentFor < s.cluster.staleSeconds) continue
              const why = `worker ${u.worker} silent for ${Math.round(u.silentFor)} s`
              const last = u.attempts > s.cluster.retryLimit
              yield* board.settle(
                runId,
                u.index,
                last ? "failed" : "queued",
                `${why}${last ? "" : "; given to another"}`
              )
              if (u.bossId !== null) yield* queue.fail(u.bossId, why)
              yield* Effect.logWarning(
                `unit ${u.index}: ${why}${last ? "; no attempt left" : "; given to another worker"}`
              )
            }
            // A worker killed between taking a unit from the queue and recording it leaves it active
            // in pg-boss but queued here: looked for once per stale period, and queued again.
            if (Date.now() - lastLost >= s.cluster.staleSeconds * 1000) {
              lastLost = Date.now()
              for (const u of rows) {
                if (u.state !== "queued" || u.bossId === null || u.age < s.cluster.staleSeconds) continue
                // Taken a moment ago and about to be recorded is not lost: only one taken long ago.
                const taken = yield* queue.activeFor(u.bossId)
                if (taken === undefined || taken < s.cluster.staleSeconds) continue
                yield* queue.fail(u.bossId, "taken by a worker that never reported")
                yield* board.settle(runId, u.index, "queued", "taken by a worker that never reported; given to another")
                yield* Effect.logWarning(
                  `unit ${u.index}: taken by a worker that never reported; given to another worker`
                )
              }
            }
            const doneRows = rows.filter((u) => u.state === "done")
            // The progress line counts the rows of the units done, wherever they were worked.
            s.stats.setCarried(doneRows.reduce((n, u) => n + u.rows, 0))
            if (doneRows.length !== lastDone) {
              lastDone = doneRows.length
              yield* Effect.logInfo(`units: ${lastDone} of ${rows.length} done`)
            }
            if (doneRows.length === rows.length) return Option.none()
            yield* Effect.raceFirst(Effect.sleep(Duration.millis(pollMs)), s.stop)
          }
          return Option.none()
        })
        yield* Deferred.succeed(allDone, undefined)
        yield* Fiber.interrupt(stopSeen)
        if (Option.isSome(outcome)) {
          // The run stops: units still queued are withdrawn (a rerun sends them again).
          const rows = yield* board.units(runId)
          yield* queue.cancel(rows.filter((u) => u.state === "queued" && u.bossId !== null).map((u) => u.bossId!))
        }
        if (local !== undefined) yield* Fiber.join(local)
        if (Option.isSome(outcome)) return yield* Effect.fail(outcome.value)
        const source = openSource(s.input, s.format, s.sourceOptions)
        const shape = yield* readShape(source, yield* sourceColumns(source), () => s.stats.readReject())
        return { stopped, budgetSpent: false, ...shape }
      })
    )
