/**
 * The sink port: where the enriched dataset goes. An adapter (csv, jsonl, parquet today; a vector
 * store next) is chosen by name from `sinks/index.ts`, so a new sink never edits the runner.
 * Writes are atomic: a sink opened in a scope that closes without `commit` leaves nothing at the
 * destination (a file sink writes a temporary file beside it and renames it on commit).
 */
import { Data, type Effect, type Scope } from "effect"
import type { Column } from "./columns.ts"
import type { InputTypes } from "./input-types.ts"
import { ExitCode } from "../exit-code.ts"

export class SinkError extends Data.TaggedError("SinkError")<{ readonly path: string; readonly detail: string }> {
  /** Exit 9 when it ends a command: the previous output is kept; the run resumes once the cause is fixed. */
  get exitCode() {
    return ExitCode.outputNotWritten
  }
  override get message() {
    return `cannot write ${this.path}: ${this.detail}`
  }
}

export interface SinkSpec {
  readonly path: string
  /** The input's columns, written first and as they are. */
  readonly inputColumns: ReadonlyArray<string>
  /** The stages' typed columns, after the input's (one already an input column is not repeated). */
  readonly outputColumns: ReadonlyArray<Column>
  /** What is known of the input columns' types (a Parquet input's schema, or the kinds met). */
  readonly inputTypes?: InputTypes | undefined
}

export interface RowSink {
  /** A row: input fields and output columns; a missing value is written as null. */
  readonly write: (row: Readonly<Record<string, unknown>>) => Effect.Effect<void, SinkError>
  /** Many rows at once (the output pass writes a chunk of plain rows so); absent: one `write` each. */
  readonly writeRows?: (rows: ReadonlyArray<Readonly<Record<string, unknown>>>) => Effect.Effect<void, SinkError>
  /** Finishes the output and moves it into place. */
  readonly commit: Effect.Effect<void, SinkError>
}

export interface SinkAdapter {
  readonly name: string
  /** File extensions that choose this sink when no format is given. */
  readonly extensions: ReadonlyArray<string>
  readonly open: (spec: SinkSpec) => Effect.Effect<RowSink, SinkError, Scope.Scope>
  /**
   * Checks, before any request is sent, that the output can be written: `sample` is the input's
   * first rows (output columns absent). Gives notes on input columns not written as they are
   * typed in the input. A sink that cannot fail on input values has none.
   */
  readonly check?: (spec: SinkSpec, sample: ReadonlyArray<Readonly<Record<string, unknown>>>) => Effect.Effect<ReadonlyArray<string>, SinkError>
}

/** The output columns that are not already input columns. */
export const addedColumns = (spec: SinkSpec): ReadonlyArray<Column> => {
  const input = new Set(spec.inputColumns)
  return spec.outputColumns.filter((c) => !input.has(c.name))
}
