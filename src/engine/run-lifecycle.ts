/**
 * A run's lifecycle in the ledger: choose (resume the job's last unfinished run over the same
 * input, else start a new one), and close (flush, then record the status and statistics). Kept
 * apart from the processing so the status and retry commands can reuse it.
 */
import { Effect, Option } from "effect"
import { Ledger, type Run, type RunStatus } from "../ledger/ledger.ts"
import type { RunStats } from "./run-stats.ts"

export interface OpenedRun {
  readonly runId: number
  readonly resumed: boolean
  /** When the run first started (a resumed run keeps its start: refresh mode compares with it). */
  readonly startedAt: number
  /** The job's previous run, if any. */
  readonly previous: Option.Option<Run>
}

/** A run is resumed when the job's last run is unfinished and read the same input. */
export const isResumable = (last: Run, fingerprint: string) => last.status !== "finished" && last.fingerprint === fingerprint

export const openRun = (job: string, fingerprint: string, stats: RunStats, service: string | undefined) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const previous = yield* ledger.lastRun(job)
    const resume = Option.filter(previous, (last) => isResumable(last, fingerprint))
    const runId = Option.isSome(resume) ? resume.value.id : yield* ledger.startRun(job, fingerprint)
    yield* ledger.setRun(runId, "running", stats.snapshot())
    if (service !== undefined) yield* ledger.setRunService(runId, service)
    return {
      runId,
      resumed: Option.isSome(resume),
      startedAt: Option.isSome(resume) ? resume.value.startedAt : Date.now(),
      previous
    } satisfies OpenedRun
  })

/** Flushes the ledger, then records the run's status and statistics; returns its record counts. */
export const closeRun = (runId: number, status: RunStatus, stats: RunStats) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    yield* ledger.flush
    yield* ledger.setRun(runId, status, stats.snapshot())
    return yield* ledger.counts(runId)
  })
