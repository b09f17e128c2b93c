/**
 * The vector store port: where a backfill's vectors go besides the dataset, kept in step with the
 * source by record key, and queried by `svc-batch search`. One store today, sqlite-vec, searched
 * exactly or through an HNSW sidecar index (`index: hnsw`).
 */
import { Data, Schema } from "effect"
import { ExitCode } from "../exit-code.ts"

export class StoreError extends Data.TaggedError("StoreError")<{ readonly path: string; readonly detail: string }> {
  /** Exit 9 when it ends a command: the previous output is kept; the run resumes once the cause is fixed. */
  get exitCode() {
    return ExitCode.outputNotWritten
  }
  override get message() {
    return `vector store ${this.path}: ${this.detail}`
  }
}

/** `store:` in a job file. */
export const StoreSettings = Schema.Struct({
  format: Schema.optionalWith(Schema.Literal("sqlite-vec"), { default: () => "sqlite-vec" as const }),
  /** The store's SQLite file (relative to the job file). */
  path: Schema.NonEmptyString,
  table: Schema.optionalWith(
    Schema.String.pipe(
      Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "a table name: letters, digits and _" })
    ),
    {
      default: () => "docs"
    }
  ),
  /** The vector column (default: the pipeline's one vector column). */
  vector: Schema.optional(Schema.NonEmptyString),
  /** A column whose text is kept with each vector (search shows it; rerank reads it). */
  text: Schema.optional(Schema.NonEmptyString),
  /** Columns kept beside the vector, filterable in KNN queries (stored as text). */
  metadata: Schema.optionalWith(
    Schema.Array(
      Schema.String.pipe(
        Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, {
          message: () => "a column name usable in SQL: letters, digits and _"
        })
      )
    ),
    {
      default: () => []
    }
  ),
  /** `full`: records no longer in the source are deleted from the store; `none` keeps them. */
  cleanup: Schema.optionalWith(Schema.Literal("none", "full"), { default: () => "none" as const }),
  /** `hnsw`: an approximate index (usearch HNSW) in a sidecar file kept in step with the table; `none`: exact search. */
  index: Schema.optionalWith(Schema.Literal("none", "hnsw"), { default: () => "none" as const })
})
export type StoreSettings = typeof StoreSettings.Type

/** One record's rows as the store keeps them. */
export interface StoreRow {
  /** Numbers, or the Float32 values themselves (a vector read back from the ledger). */
  readonly vector: ReadonlyArray<number> | Float32Array
  readonly text: string | null
  readonly metadata: Readonly<Record<string, string>>
}

export interface StoreWriter {
  /** The table was this job's (`own`), is created by it (`new`), or was there without an owner and is adopted. */
  readonly claimed: "new" | "adopted" | "own"
  /** This writer's pass: every record it writes, keeps or finds unchanged is marked with it. */
  readonly pass: string
  /**
   * A record's rows (one, or one per chunk; none when it has no vector), replacing what the store
   * held for it. `hash` identifies the content: a record whose hash is unchanged is not rewritten,
   * and `rows` is not called.
   */
  readonly put: (recordKey: string, hash: string, rows: () => ReadonlyArray<StoreRow>) => void
  /** A record still in the source whose rows stay as they are (e.g. it failed this run). */
  readonly keep: (recordKey: string) => void
  /**
   * Claims a record key for this pass, at the record's input line: undefined for the first record
   * with that key, else the line of that first one (a repeated id, which must not replace it).
   */
  readonly claim: (recordKey: string, line: number) => number | undefined
  /** Commits, applies `cleanup`, and returns what changed. */
  readonly commit: () => StoreChanges
  readonly close: () => void
}

export interface StoreChanges {
  readonly written: number
  readonly unchanged: number
  readonly deleted: number
}

/** A store table's records, and how many of them a given pass saw (see `storeState`). */
export interface StoreState {
  readonly records: number
  readonly current: number
}

export interface Hit {
  readonly key: string
  readonly recordKey: string
  readonly distance: number
  readonly text: string | null
  readonly metadata: Readonly<Record<string, string>>
}

/** The column the store takes its vectors from, or why the pipeline cannot feed it. */
export const storeVectorColumn = (
  settings: StoreSettings,
  columns: ReadonlyArray<{ readonly name: string; readonly type: { readonly _tag: string; readonly dim?: number } }>
): { readonly column: string; readonly dim: number } | string => {
  const vectors = columns.filter((c) => c.type._tag === "vector")
  if (settings.vector !== undefined) {
    const c = vectors.find((v) => v.name === settings.vector)
    return c === undefined
      ? `store.vector: no stage adds a vector column ${JSON.stringify(settings.vector)} (vector columns: ${vectors.map((v) => v.name).join(", ") || "none"})`
      : { column: c.name, dim: c.type.dim ?? 0 }
  }
  if (vectors.length === 1) return { column: vectors[0]!.name, dim: vectors[0]!.type.dim ?? 0 }
  return vectors.length === 0
    ? "store: the pipeline adds no vector column (add an embed stage)"
    : `store.vector: the pipeline adds several vector columns (${vectors.map((v) => v.name).join(", ")}); name one`
}
