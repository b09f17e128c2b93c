/**
 * How a command ended when it did not fail: a value, mapped to the process's exit code in one
 * place (exit-codes.ts), set by main.ts alone. @effect/cli's handlers return nothing, so a command
 * hands its outcome to main through `CommandOutcome` (`ending`).
 */
import { Context, Data, Effect, Ref } from "effect"

export type Outcome = Data.TaggedEnum<{
  /** Every row is in the output (`rejects: false`), or some are in the rejects file. */
  Finished: { readonly rejects: boolean }
  /** Stopped by a signal: resumable. */
  Interrupted: {}
  /** `--max-requests` spent: resumable. */
  BudgetSpent: {}
  /** A condition that fails every request (401, wrong URL, service down): resumable once fixed. */
  Aborted: {}
  /** Finished, but the report exceeds a `report.fail` threshold. */
  ThresholdsExceeded: {}
  /** `check`: a probe failed. */
  CheckFailed: {}
}>

export const Outcome = Data.taggedEnum<Outcome>()

/** A command that prints what it was asked and nothing went wrong. */
export const done: Outcome = Outcome.Finished({ rejects: false })

/** Where the command leaves its outcome for main.ts. */
export class CommandOutcome extends Context.Tag("svc-batch/CommandOutcome")<CommandOutcome, Ref.Ref<Outcome>>() {}

/** A command handler that ends in an outcome value. */
export const ending =
  <A, E, R>(handler: (a: A) => Effect.Effect<Outcome, E, R>) =>
  (a: A): Effect.Effect<void, E, R | CommandOutcome> =>
    Effect.flatMap(handler(a), (outcome) => Effect.flatMap(CommandOutcome, (ref) => Ref.set(ref, outcome)))
