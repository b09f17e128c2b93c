/**
 * A run's lifecycle in the ledger: choose (resume the job's last unfinished run over the same
 * input, else start a new one), and close (flush, then record the status and statistics). Kept
 * apart from the processing so the status and retry commands can reuse it.
 */
import { Data, Effect, Option } from "effect"
import { Ledger, type Run, type RunStatus } from "../ledger/ledger.ts"
import type { RunStats } from "./run-stats.ts"
import { ExitCode } from "../exit-code.ts"

export interface OpenedRun {
  readonly runId: number
  readonly resumed: boolean
  /** When the run first started (a resumed run keeps its start: refresh mode compares with it). */
  readonly startedAt: number
  /** The job's previous run, if any. */
  readonly previous: Option.Option<Run>
  /**
   * The origin a resumed run was started against, when it differs from this invocation's: the
   * run had no record done (no answer of that origin to mix), so it goes on against the new one.
   */
  readonly movedFrom?: string | undefined
  /**
   * The resumed run had been aborted: its failures include the streak that tripped the breaker
   * (a wrong URL, a key refused, a service down), whose cause the user has fixed since.
   */
  readonly wasAborted: boolean
}

/**
 * Resuming would mix answers from two origins (the emulator and the service, or two services): the
 * run has records done with its origin's answers. `command`: the command line that starts afresh.
 */
export class OriginChanged extends Data.TaggedError("OriginChanged")<{
  readonly runId: number
  readonly was: string
  readonly now: string
  readonly done: number
  readonly command?: string | undefined
}> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    const name = (o: string) => (o === "emulator" ? "the EMULATOR" : o)
    const fresh = this.command === undefined ? "start a new run with --new-run" : `start a new run: ${this.command}`
    return `run ${this.runId} was started against ${name(this.was)} and has ${this.done} record(s) done with its answers; this invocation would use ${name(this.now)}. Resume it against the same service, or ${fresh} (answers are reused only from the same origin)`
  }
}

/** `retry` of a run that cannot be reopened (another job's, unknown, or its input changed). */
export class CannotReopen extends Data.TaggedError("CannotReopen")<{
  readonly runId: number
  readonly detail: string
}> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return `cannot retry run ${this.runId}: ${this.detail}`
  }
}

/** A run is resumed when the job's last run is unfinished and read the same input. */
export const isResumable = (last: Run, fingerprint: string) =>
  last.status !== "finished" && last.fingerprint === fingerprint

/** `newRunCommand`: the command line that would start a new run, quoted in OriginChanged. */
export const openRun = (
  job: string,
  fingerprint: string,
  stats: RunStats,
  service: string | undefined,
  forceNew = false,
  reopen?: number,
  newRunCommand?: string
) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const previous = yield* ledger.lastRun(job)
    // `retry`: a given run, finished or not, reopened to ask its failed records again.
    const reopened = reopen === undefined ? Option.none() : yield* ledger.run(reopen)
    if (reopen !== undefined) {
      if (Option.isNone(reopened) || reopened.value.job !== job)
        return yield* new CannotReopen({ runId: reopen, detail: `no run ${reopen} of job ${job} in the ledger` })
      if (reopened.value.fingerprint !== fingerprint) {
        return yield* new CannotReopen({
          runId: reopen,
          detail: "the input has changed since that run; run the job instead (answers are reused)"
        })
      }
    }
    const resume =
      reopen !== undefined ? reopened : Option.filter(previous, (last) => !forceNew && isResumable(last, fingerprint))
    let movedFrom: string | undefined
    if (
      Option.isSome(resume) &&
      service !== undefined &&
      resume.value.service !== null &&
      resume.value.service !== service
    ) {
      // A run with no record done holds nothing of its origin (e.g. aborted against a wrong URL):
      // it may go on against the new one, which the failed records are asked of again.
      const { done } = yield* ledger.counts(resume.value.id)
      if (done > 0)
        return yield* new OriginChanged({
          runId: resume.value.id,
          was: resume.value.service,
          now: service,
          done,
          command: newRunCommand
        })
      movedFrom = resume.value.service
    }
    const runId = Option.isSome(resume) ? resume.value.id : yield* ledger.startRun(job, fingerprint)
    // Before the run's saved statistics are overwritten: they go on from there.
    if (Option.isSome(resume)) stats.carryCounters(resume.value.stats)
    yield* ledger.setRun(runId, "running", stats.totals())
    if (service !== undefined) yield* ledger.setRunService(runId, service)
    return {
      runId,
      resumed: Option.isSome(resume),
      startedAt: Option.isSome(resume) ? resume.value.startedAt : Date.now(),
      previous,
      movedFrom,
      wasAborted: Option.isSome(resume) && resume.value.status === "aborted"
    } satisfies OpenedRun
  })

/**
 * Flushes the ledger, then records the run's status and statistics; returns its record counts
 * (`counts`: already counted since the last record was written, so not counted again).
 */
export const closeRun = (
  runId: number,
  status: RunStatus,
  stats: RunStats,
  counts?: { readonly done: number; readonly failed: number }
) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    yield* ledger.flush
    stats.setCommitLag(ledger.commitLag())
    yield* ledger.setRun(runId, status, stats.totals())
    return counts ?? (yield* ledger.counts(runId))
  })

/**
 * A run that stopped on a failure (an output or the ledger not written) marked interrupted, so
 * `status` and the next invocation see it stopped, not running; it resumes as any interrupted run.
 * Best effort: what the ledger still takes is flushed first, and a ledger that cannot take the
 * status either (its disk full) leaves the run as it was (its released lock says it is gone).
 */
export const markInterrupted = (runId: number, stats: RunStats) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    yield* Effect.ignore(ledger.flush)
    yield* ledger.setRun(runId, "interrupted", stats.totals())
  }).pipe(Effect.catchAllCause((cause) => Effect.logDebug(`run ${runId} could not be marked interrupted`, cause)))
