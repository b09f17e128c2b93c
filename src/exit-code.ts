/**
 * The exit codes of every command (documented in the README). Each error class that reaches the top
 * of a command carries its own (`exitCode`), so a renamed class keeps its code; this module sits
 * below every room so that any error can name one.
 */
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
  /**
   * The ledger's server (PostgreSQL) cannot be reached or refused the connection. What it holds is
   * kept; run the same command again once it is back.
   */
  ledgerUnreachable: 10,
  /**
   * `run --cluster`: a work unit was refused by a worker (the input unreadable there, or another
   * file than the one fingerprinted) or failed every attempt. The run stops; it resumes with the
   * same command once fixed.
   */
  unitFailed: 11,
  interrupted: 130,
  /** stdout's or stderr's reader has gone (128 + SIGPIPE, as a shell reports a tool SIGPIPE killed). */
  readerGone: 141
} as const

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** The code an error declares (`exitCode`), if it declares one. */
export const declaredExitCode = (error: unknown): number | undefined => {
  if (typeof error !== "object" || error === null || !("exitCode" in error)) return undefined
  const code = (error as { readonly exitCode: unknown }).exitCode
  return typeof code === "number" ? code : undefined
}
