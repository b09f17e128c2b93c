/** The one mapping from how a command ended (an outcome, or an error) to the process's exit code. */
import { ValidationError } from "@effect/cli"
import { Either } from "effect"
import { declaredExitCode, ExitCode } from "../exit-code.ts"
import type { Outcome } from "./outcome.ts"

export { ExitCode } from "../exit-code.ts"

const outcomeCode = (outcome: Outcome): number => {
  switch (outcome._tag) {
    case "Finished":
      return outcome.rejects ? ExitCode.failedRecords : ExitCode.ok
    case "Interrupted":
      return ExitCode.interrupted
    case "BudgetSpent":
      return ExitCode.budgetSpent
    case "Aborted":
      return ExitCode.aborted
    case "ThresholdsExceeded":
      return ExitCode.thresholds
    case "CheckFailed":
      return ExitCode.checkFailed
  }
}

/** The exit code of an error that reached the top of a command: its own `exitCode`, else 1. */
export const exitCodeOfError = (error: unknown): number => {
  // @effect/cli's parse errors (unknown flag, missing file, bad value) are tagged by kind
  // (InvalidValue, MissingValue, …) and carry no code of ours.
  if (ValidationError.isValidationError(error)) return ExitCode.invalid
  return declaredExitCode(error) ?? ExitCode.failedRecords
}

/** The exit code of how a command ended: its outcome (right) or the error at its top (left). */
export const exitCodeFor = (ended: Either.Either<Outcome, unknown>): number =>
  Either.match(ended, { onLeft: exitCodeOfError, onRight: outcomeCode })
