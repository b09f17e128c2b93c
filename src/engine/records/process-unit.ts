/**
 * Processing a part of a run's input (a cluster's work unit) or all of it (a single-machine run):
 * the run's flow built (dispatcher.ts) and the processing pass over that part. The one function
 * both paths use: a unit is the same pass over a slice, no second engine.
 */
import { Data, Effect } from "effect"
import { ExitCode } from "../../exit-code.ts"
import type { InputUnit } from "../../io/source.ts"
import { sourceColumns } from "../../io/input-access.ts"
import { type FlowSettings, makeDispatcher } from "../flow/dispatcher.ts"
import type { RunStats } from "../run-stats.ts"
import { type OutcomeListener, processingPass, type ProcessingSettings } from "./processing-pass.ts"

export type UnitSettings = ProcessingSettings & FlowSettings

export interface UnitContext {
  readonly runId: number
  /** Whether records of the run may be finished already (skipped): a resumed run, or any unit. */
  readonly resumed: boolean
  readonly startedAt: number
  /** None: the whole input. */
  readonly unit?: InputUnit | undefined
  readonly inline?: OutcomeListener | undefined
  /** The source's columns, when the caller read them already (else read here). */
  readonly declared?: ReadonlyArray<string> | undefined
}

/**
 * The flow is the process's own (its limiters per model): the seam where a budget shared by
 * every machine of a cluster plugs in.
 */
export const processUnit = (settings: UnitSettings, stats: RunStats, context: UnitContext) =>
  Effect.gen(function* () {
    const dispatcher = yield* makeDispatcher(settings, stats)
    const declared = "declared" in context ? context.declared : yield* sourceColumns(settings.source)
    return yield* processingPass(settings, stats, {
      runId: context.runId,
      resumed: context.resumed,
      startedAt: context.startedAt,
      dispatcher,
      inline: context.inline,
      declared,
      knownTypes: settings.source.inputTypes !== undefined,
      unit: context.unit
    })
  })

/**
 * A unit of a distributed run that no worker could process: refused (its input unreadable there,
 * or not the file the coordinator fingerprinted), or failed on every attempt. The coordinator
 * stops the run (exit 11); what was done stays, and the same command resumes it.
 */
export class UnitFailed extends Data.TaggedError("UnitFailed")<{
  readonly unit: number
  readonly worker: string | undefined
  readonly detail: string
}> {
  get exitCode() {
    return ExitCode.unitFailed
  }
  override get message() {
    return `unit ${this.unit}${this.worker !== undefined ? ` (worker ${this.worker})` : ""}: ${this.detail}`
  }
}
