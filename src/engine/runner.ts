/**
 * Runs a pipeline over a source, resumably, in three phases:
 * 1. the run (run-lifecycle): the job's last unfinished run over the same input is resumed, else
 *    a new one starts;
 * 2. the processing pass (processing-pass): records stream from the source; one already finished
 *    in this run is skipped; the others go through the stage fold, answered by the answer cache
 *    (ledger, in flight, or the service); each outcome goes to the ledger;
 * 3. the output, in input order, into the sink and the rejects file, committed only when every
 *    record is done or failed: written during the processing pass as records finish (inline-output)
 *    when the sink can be opened before the input's end, else by the output pass (output-pass),
 *    which reads the source again and joins it with the outcomes.
 * A stop ends the reading; records in flight finish within the grace period; the ledger is
 * flushed; the run stays resumable.
 */
import { Cause, Duration, Effect, Exit, Fiber, Schedule, Scope, Stream } from "effect"
import { existsSync } from "node:fs"
import { besidePath } from "../io/run-path.ts"
import { Ledger, type LedgerError } from "../ledger/ledger.ts"
import type { Source, SourceError } from "../io/source.ts"
import type { CacheMode } from "./records/answer-cache.ts"
import { checkOutput } from "./output/output-check.ts"
import { writeOutputs } from "./output/output-pass.ts"
import type { OutputResult } from "./output/output-writer.ts"
import { type InlineLimits, inlineOutputFits, openInlineOutput } from "./output/inline-output.ts"
import { MAX_COLLECTED_COLUMNS, type ProcessingResult } from "./records/processing-pass.ts"
import { processUnit, type UnitFailed } from "./records/process-unit.ts"
import type { JobAborted } from "./flow/dispatcher.ts"
import type { RetryPolicy } from "./flow/retry.ts"
import type { SharedRate } from "./flow/shared-bucket.ts"
import { closeRun, markInterrupted, openRun } from "./run-lifecycle.ts"
import type { RunStats } from "./run-stats.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import type { StoreChanges, StoreSettings } from "../store/vector-store.ts"
import { makeInputGuard } from "./output/input-guard.ts"
import { watchInput } from "./output/input-watch.ts"
import { removeStaleTemps } from "../io/atomic-file.ts"
import { sourceColumns } from "../io/input-access.ts"
import { checkInputColumns } from "./input-columns.ts"
import type { RowTallies } from "./output/row-tally.ts"
import { keepUnchangedOutput, manifestOf, previousManifest } from "./output/unchanged-output.ts"

export interface RunSettings {
  readonly job: string
  /** Where answers come from, recorded with the run: "emulator" or the service's base URL. */
  readonly service?: string | undefined
  /** Start a new run even when the last one could be resumed. */
  readonly newRun?: boolean | undefined
  /** Reopen this run (finished or not) instead: `retry` asks its failed records again. */
  readonly reopen?: number | undefined
  /** The command line that starts a new run (`… --new-run`), for the refusal to mix origins. */
  readonly newRunCommand?: string | undefined
  readonly pipeline: Pipeline
  readonly source: Source
  readonly fingerprint: string
  /** The enriched dataset: a path and the name of a sink adapter (csv, jsonl, parquet, …). */
  readonly output: { readonly path: string; readonly format: string }
  readonly rejectsPath: string
  /** A vector store fed by the output, kept in step with the source by record key. */
  readonly store?: StoreSettings | undefined
  /** Column holding a stable record id; else fingerprint:ordinal. */
  readonly idField?: string | undefined
  /** Consumers of the output's rows (the report's tally, the verdicts' count): every record joined with its outcome. */
  readonly tallies?: RowTallies | undefined
  /** `false`: the output written by the output pass though it could be inline (tests); else the inline output's limits. */
  readonly inlineOutput?: InlineLimits | false | undefined
  readonly cache: CacheMode
  readonly retryFailed: boolean
  /** Records in progress at once. */
  readonly recordConcurrency: number
  readonly rpm: Readonly<Record<string, number>>
  readonly maxConcurrency: number
  readonly retry: RetryPolicy
  /** Requests failing in a row, for a cause no retry can fix, that abort the run (default 10). */
  readonly breakerThreshold?: number | undefined
  /** SVC_BASE_URL when set (the breaker names it when its answers are not the API's). */
  readonly baseUrl?: string | undefined
  /** A cluster's rate shared by every worker (FlowSettings.sharedRate; cluster/shared-rate.ts opens it). */
  readonly sharedRate?: SharedRate | undefined
  /** Completes when the user asks to stop (first SIGINT/SIGTERM). */
  readonly stop: Effect.Effect<void>
  /** Requests this invocation may send (`--max-requests`); reaching it stops the run as a stop does. */
  readonly maxRequests?: number | undefined
  /** How long records in flight may take to finish after a stop. */
  readonly grace: Duration.Duration
  /**
   * The processing pass done elsewhere: a cluster's coordinator (src/cluster/) cuts the input into
   * units that workers (itself among them) process with `processUnit`, and waits for them all.
   * The output is then written from the ledger as a single run's is.
   */
  readonly distribute?: Distribute | undefined
  /** What decides the output's bytes besides these settings (the version, the input's options): an unchanged output is kept only if it is the same. */
  readonly outputIdentity?: string | undefined
}

/** The run's processing, distributed: completes when every unit is done (or a stop ends the wait). */
export type Distribute = (run: {
  readonly runId: number
  readonly resumed: boolean
  readonly startedAt: number
  readonly retryFailed: boolean
  readonly fingerprint: string
}) => Effect.Effect<ProcessingResult, JobAborted | UnitFailed | LedgerError | SourceError, Ledger>

export interface RunSummary {
  readonly runId: number
  readonly resumed: boolean
  readonly status: "finished" | "interrupted" | "aborted"
  /** An interrupted run stopped by its request budget rather than a signal. */
  readonly budgetSpent?: boolean
  readonly done: number
  readonly failed: number
  readonly readRejects: number
  /** Rows of a finished run's input without an outcome (in the rejects file as "not processed"). */
  readonly notProcessed?: number
  /** Records whose id an earlier record of the input has; with a store, `rejected` of them went to the rejects file. */
  readonly duplicates?: {
    readonly ids: number
    readonly records: number
    readonly rejected: number
    readonly examples: ReadonlyArray<string>
  }
  readonly abortReason?: string
  readonly outputPath?: string
  readonly rejectsPath?: string
  /** The previous output, kept (with its rejects file) because every record of this run failed. */
  readonly keptPrevious?: string
  /** What the output changed in the vector store. */
  readonly store?: StoreChanges
  /** The output (rejects and store too) was already what this run would write: kept as this run wrote it. */
  readonly outputKept?: number
}

const summary = (s: RunSummary): RunSummary => s

export const runPipeline = (settings: RunSettings, stats: RunStats) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    // A column the job reads that the input lacks (its header, schema, or a JSONL sample's keys for a
    // `when` column) fails now, not record by record or silently.
    yield* checkInputColumns(settings.pipeline, settings.idField, settings.source)
    // An output that cannot be written fails now, before any request is paid for.
    yield* checkOutput(settings)
    // Partial outputs left by a killed earlier invocation (`<output>.tmp-<pid>`): removed now, not at the end.
    for (const path of [settings.output.path, settings.rejectsPath]) {
      for (const t of removeStaleTemps(path))
        yield* Effect.logInfo(`removed ${t.path} (${t.bytes} bytes), a partial output left by a process that is gone`)
    }
    const run = yield* openRun(
      settings.job,
      settings.fingerprint,
      stats,
      settings.service,
      settings.newRun === true,
      settings.reopen,
      settings.newRunCommand
    )
    const { runId, resumed } = run
    // A failure from here on (an output or the ledger not written) leaves the run interrupted, not
    // running. Added before the heartbeat: finalizers run in reverse, so the heartbeat stops first.
    yield* Effect.addFinalizer((exit) =>
      Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause) ? markInterrupted(runId, stats) : Effect.void
    )
    if (run.movedFrom !== undefined) {
      yield* Effect.logInfo(
        `run ${runId} had no record done against ${run.movedFrom}: resumed against ${settings.service}, now its origin; its failed records are asked again`
      )
    }
    if (resumed) {
      const earlier = yield* ledger.counts(runId)
      stats.setCarried(earlier.done + earlier.failed)
    }
    stats.setPhase("processing")
    // The statistics saved every few seconds while the run goes, for `svc-batch status` in another
    // terminal; stopped before the run is closed, so a late save never overwrites the final status.
    const heartbeat = yield* Effect.forkScoped(
      Effect.suspend(() => ledger.setRun(runId, "running", stats.totals())).pipe(
        Effect.repeat(Schedule.spaced(Duration.seconds(2))),
        Effect.delay(Duration.seconds(2))
      )
    )
    const close = (
      status: "aborted" | "interrupted" | "finished",
      counts?: { readonly done: number; readonly failed: number }
    ) => Effect.zipRight(Fiber.interrupt(heartbeat), closeRun(runId, status, stats, counts))
    // The output written as records finish, when the sink allows it (see openInlineOutput).
    const declared = yield* sourceColumns(settings.source)
    const knownTypes = settings.source.inputTypes !== undefined
    const guard = makeInputGuard(settings.source.path, settings.fingerprint, { cacheOff: settings.cache === "off" })
    const inline =
      settings.distribute === undefined && inlineOutputFits(settings, declared, knownTypes)
        ? yield* openInlineOutput(settings, declared, guard)
        : undefined
    // The failures of a run moved to another origin were the other's (a wrong URL), and those of an
    // aborted run include the abort's streak, whose cause is fixed now: asked again either way.
    const distribute = settings.distribute
    // The input changed while its records are processed stops the run then, as a stop does (exit 8 below).
    const watch = distribute === undefined ? yield* watchInput(guard) : undefined
    const processing = {
      ...settings,
      ...(run.movedFrom === undefined && !run.wasAborted ? {} : { retryFailed: true }),
      ...(watch === undefined ? {} : { stop: Effect.raceFirst(settings.stop, watch.changed) })
    }
    const pass = yield* Effect.either(
      Effect.gen(function* () {
        if (distribute !== undefined)
          return yield* distribute({
            runId,
            resumed,
            startedAt: run.startedAt,
            retryFailed: processing.retryFailed,
            fingerprint: settings.fingerprint
          })
        return yield* processUnit(processing, stats, {
          runId,
          resumed,
          startedAt: run.startedAt,
          inline: inline?.output,
          declared
        })
      })
    )
    if (watch !== undefined) yield* watch.end
    const readRejects = stats.snapshot().readRejects

    if (pass._tag === "Left") {
      const error = pass.left
      if (error._tag === "JobAborted") {
        const counts = yield* close("aborted")
        return summary({ runId, resumed, status: "aborted", ...counts, readRejects, abortReason: error.reason })
      }
      yield* ledger.flush
      return yield* Effect.fail(error)
    }
    const processed = pass.right
    if (processed.stopped) {
      const counts = yield* close("interrupted")
      const changedInput = watch?.failure()
      if (changedInput !== undefined) return yield* Effect.fail(changedInput)
      return summary({
        runId,
        resumed,
        status: "interrupted",
        ...counts,
        readRejects,
        ...(processed.budgetSpent ? { budgetSpent: true } : {})
      })
    }
    stats.settleTotal()
    yield* ledger.flush
    // A changed input leaves the run interrupted (its answers stay; a new run over the new file reuses them).
    const changed = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.tapError(effect, (e) => (e._tag === "InputChanged" ? close("interrupted") : Effect.void))
    // A run whose every record failed does not replace the previous output: it writes beside it,
    // its rejects too, so the previous output keeps the rejects file of its own run.
    // (No record is written after this: the output does not change them.)
    const before = yield* ledger.counts(runId)
    const keepPrevious = before.done === 0 && before.failed > 0 && existsSync(settings.output.path)
    const outputPath = keepPrevious ? besidePath(settings.output.path, runId) : settings.output.path
    const rejectsPath = keepPrevious ? besidePath(settings.rejectsPath, runId) : settings.rejectsPath
    if (keepPrevious) inline?.output.giveUp("every record failed: the output goes beside the previous one")
    const inlineWriter = inline === undefined ? undefined : yield* inline.output.finish
    if (inline !== undefined && inlineWriter === undefined)
      yield* Effect.logDebug(`the output is written after processing: ${inline.output.reason()}`)
    stats.setPhase("writing")
    // Ids are counted only when the job names an id column (generated keys are unique by construction);
    // the output rejects the repeats a store cannot keep, as it writes.
    const duplicates =
      settings.idField === undefined
        ? new Map<string, { first: number; count: number }>()
        : yield* ledger.duplicateKeys(runId)
    let written: OutputResult
    if (inline !== undefined && inlineWriter !== undefined) {
      // Written as the run went: committed now (after the input's check, which the commit makes).
      written = yield* changed(
        Effect.ensuring(Scope.extend(inlineWriter.commit, inline.scope), Scope.close(inline.scope, Exit.void))
      )
    } else {
      // The output pass joins the input by row number: only right if it is still the file processed.
      yield* changed(guard.verify)
      if (processed.overflow > 0) {
        yield* Effect.logWarning(
          `${settings.source.path}: more than ${MAX_COLLECTED_COLUMNS} distinct keys; keys met after that are left out of ${settings.output.format} output columns`
        )
      }
      // Counted for the progress line: the output pass reads the source once more.
      const counted: Source = {
        ...settings.source,
        columns: Effect.sync(() => declared ?? processed.columns),
        inputTypes: knownTypes ? settings.source.inputTypes : Effect.sync(() => processed.types()),
        items: (unit) =>
          settings.source.items(unit).pipe(
            Stream.mapChunks((chunk) => {
              stats.rowWritten(chunk.length)
              return chunk
            })
          )
      }
      const target = { ...settings, source: counted, output: { ...settings.output, path: outputPath }, rejectsPath }
      // The newest answer before the output is read: one written while it is, is newer than the manifest says.
      const answersAt = yield* ledger.lastAnswerAt
      // An output that would come out as the last run wrote it is kept (unchanged-output.ts).
      const previous = keepPrevious ? undefined : yield* previousManifest(settings.job, runId)
      const kept =
        previous === undefined
          ? undefined
          : yield* changed(keepUnchangedOutput(target, runId, previous, answersAt, guard))
      written = kept ?? (yield* changed(writeOutputs(target, runId, guard)))
      if (!keepPrevious) {
        const manifest = manifestOf(target, written, answersAt, kept === undefined ? runId : kept.kept!)
        if (manifest !== undefined) stats.setOutput(manifest)
      }
    }
    const counts = yield* close("finished", before)
    return summary({
      runId,
      resumed,
      status: "finished",
      ...counts,
      readRejects,
      notProcessed: written.notProcessed,
      duplicates: {
        ids: duplicates.size,
        records: [...duplicates.values()].reduce((n, d) => n + d.count - 1, 0),
        rejected: written.duplicateRejects,
        examples: [...duplicates.keys()].slice(0, 3)
      },
      outputPath,
      rejectsPath,
      ...(written.kept !== undefined ? { outputKept: written.kept } : {}),
      ...(written.store ? { store: written.store } : {}),
      ...(keepPrevious ? { keptPrevious: settings.output.path } : {})
    })
  })
