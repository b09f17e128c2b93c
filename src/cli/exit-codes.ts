import { ValidationError } from "@effect/cli"

/** Exit codes of every command (documented in the README). */
export const ExitCode = {
  ok: 0,
  /** Finished, but some rows are in the rejects file (failed, unreadable or not processed). */
  failedRecords: 1,
  /** Invalid job, configuration, option or input; a ledger that cannot be opened or is not one. */
  invalid: 2,
  /** Aborted: a condition that fails every request (e.g. 401). */
  aborted: 3,
  /** Finished, but the report exceeds a threshold the job set (report.fail). */
  thresholds: 4,
  /** `check`: a request to the service failed (key refused, wrong URL, unreachable, …). */
  checkFailed: 5,
  /** `run --max-requests N`: the budget was spent; the run stopped cleanly and is resumable. */
  budgetSpent: 6,
  /** Another `run`/`retry`/`gc` of the same job holds its lock; or another process wrote the vector store for too long. */
  busy: 7,
  /** The input changed during the run: no output written; the next run reuses the answers. */
  inputChanged: 8,
  /**
   * Output not written: a file the run writes (output, rejects, report, vector store) or the
   * ledger could not be written (disk full, quota, I/O error). The previous output is kept; the
   * run is marked interrupted and resumes with the same command once the cause is fixed.
   */
  outputNotWritten: 9,
  interrupted: 130
} as const

/** The exit code for an error that reached the top of a command. */
export const exitCodeFor = (error: unknown): number => {
  // @effect/cli's parse errors (unknown flag, missing file, bad value) are tagged by kind
  // (InvalidValue, MissingValue, …), not "ValidationError".
  if (ValidationError.isValidationError(error)) return ExitCode.invalid
  const tag = typeof error === "object" && error !== null && "_tag" in error ? String(error._tag) : ""
  switch (tag) {
    case "ConfigError":
    case "JobFileError":
    case "OptionError":
    case "EmulatorStartError":
    case "PipelineError":
    case "OriginChanged":
    case "CannotReopen":
    case "SourceError":
    case "MissingColumns":
    case "StoreOwned":
    case "InvalidRequestError":
    case "ValidationError":
      return ExitCode.invalid
    case "JobBusy":
    case "StoreBusy":
      return ExitCode.busy
    case "InputChanged":
      return ExitCode.inputChanged
    case "OutputError":
    case "SinkError":
    case "StoreError":
      return ExitCode.outputNotWritten
    case "LedgerError":
      // A disk that failed a write mid-run is not an invalid ledger: requests may have been sent.
      return (error as { readonly io?: boolean }).io === true ? ExitCode.outputNotWritten : ExitCode.invalid
    case "UnauthorizedError":
      return ExitCode.aborted
    default:
      return ExitCode.failedRecords
  }
}
