/** The output (dataset, rejects file or vector store) that cannot be written. */
import { Data } from "effect"
import { ExitCode } from "../../exit-code.ts"

export class OutputError extends Data.TaggedError("OutputError")<{ readonly path: string; readonly detail: string }> {
  /** Exit 9 when it ends a command: the previous output is kept; the run resumes once the cause is fixed. */
  get exitCode() {
    return ExitCode.outputNotWritten
  }
  override get message() {
    return `cannot write ${this.path}: ${this.detail}`
  }
}
