/**
 * The sink port: where the enriched dataset goes, and the vector store beside it. An adapter (csv,
 * jsonl, parquet; sqlite-vec for vectors) is chosen by name from `sinks/index.ts`, so a new sink
 * or store never edits the runner.
 * Writes are atomic: a sink opened in a scope that closes without `commit` leaves nothing at the
 * destination (a file sink writes a temporary file beside it and renames it on commit).
 */
import { Data, type Effect, type Scope } from "effect"
import type { Column } from "../pipeline/columns.ts"
import type { InputTypes } from "./input-types.ts"
import type { Hit, StoreSettings, StoreState, StoreWriter } from "../store/vector-store.ts"
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

/**
 * What a sink needs to know of the input before it can open: `nothing` (each row carries its
 * own keys), its `columns` (a header written first), or also their `types` (a typed schema).
 * A run writes its output as it goes only when the input tells this before its end.
 */
export type SinkNeeds = "nothing" | "columns" | "types"

export interface SinkAdapter {
  readonly name: string
  /** File extensions that choose this sink when no format is given. */
  readonly extensions: ReadonlyArray<string>
  readonly needs: SinkNeeds
  readonly open: (spec: SinkSpec) => Effect.Effect<RowSink, SinkError, Scope.Scope>
  /**
   * Checks, before any request is sent, that the output can be written: `sample` is the input's
   * first rows (output columns absent). Gives notes on input columns not written as they are
   * typed in the input. A sink that cannot fail on input values has none.
   */
  readonly check?: (
    spec: SinkSpec,
    sample: ReadonlyArray<Readonly<Record<string, unknown>>>
  ) => Effect.Effect<ReadonlyArray<string>, SinkError>
}

/** The output columns that are not already input columns. */
export const addedColumns = (spec: SinkSpec): ReadonlyArray<Column> => {
  const input = new Set(spec.inputColumns)
  return spec.outputColumns.filter((c) => !input.has(c.name))
}

/**
 * A vector store: the records' vectors (with a text and metadata) kept in step with the source by
 * record key, written beside the dataset and searched by `svc-batch search`. Writes are batched
 * transactions; `hooks.beforeCommit` may refuse one (the input changed). A store table belongs to
 * one job: opening another job's fails with StoreOwned.
 */
export interface VectorStoreAdapter {
  readonly name: string
  readonly openWriter: (
    settings: StoreSettings,
    dim: number,
    hooks: { readonly job: string; readonly beforeCommit?: () => void }
  ) => StoreWriter
  /** The `k` rows nearest to `vector`, nearest first. */
  readonly search: (settings: StoreSettings, vector: ReadonlyArray<number>, k: number) => ReadonlyArray<Hit>
  /**
   * The table's records and how many of them the writer's `pass` saw, to tell that no writer has
   * been since (undefined: unknown, or a store with files of its own beside the table).
   */
  readonly state: (settings: StoreSettings, pass: string) => StoreState | undefined
  /** Rows in the store's table (0 when there is none yet). */
  readonly size: (settings: StoreSettings) => number
}
