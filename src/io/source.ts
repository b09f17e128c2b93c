/**
 * The source port. A source streams an input file as items in file order: a record (its fields)
 * or a reject (a row that could not be read, with its line and reason). Every data row gets the
 * next ordinal, whether read or rejected, so ordinals are stable between passes over the same
 * file. A format (csv, jsonl, parquet) is one adapter in `sources/`, registered in
 * `sources/index.ts`, so a new input format never edits a caller.
 *
 * An input can be cut into units (byte ranges that end on record boundaries, or whole row
 * groups) and each unit read alone: its items are those a full read gives for that part of the
 * file, with the same ordinals and lines, so units read apart concatenate to the full read.
 */
import { Data, type Effect, Schema, type Stream } from "effect"
import type { Encoding } from "./encoding.ts"
import type { InputTypes } from "./input-types.ts"
import { ExitCode } from "../exit-code.ts"

export interface SourceRecord {
  readonly _tag: "Record"
  readonly ordinal: number
  /** 1-based line (CSV, JSONL) or row (Parquet) where the record starts. */
  readonly line: number
  readonly fields: Record<string, unknown>
}

export interface SourceReject {
  readonly _tag: "Reject"
  readonly ordinal: number
  readonly line: number
  readonly reason: string
  readonly raw: string
}

export type SourceItem = SourceRecord | SourceReject

export class SourceError extends Data.TaggedError("SourceError")<{ readonly path: string; readonly detail: string }> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return `${this.path}: ${this.detail}`
  }
}

/**
 * A part of an input that can be read alone (a work unit), a plain value so it can be stored or
 * sent. `start`/`end` (end exclusive) are byte offsets in a text file — `start` at the start of a
 * record's first line — or row numbers in a Parquet file (whole row groups).
 */
export const InputUnit = Schema.Struct({
  start: Schema.Number,
  end: Schema.Number,
  /** The ordinal of the unit's first data row, as a full read numbers it. */
  firstOrdinal: Schema.Number,
  /** The 1-based line (row, for Parquet) where the unit starts. */
  firstLine: Schema.Number,
  /** Data rows (records and rejects) in the unit. */
  rows: Schema.Number
})
export type InputUnit = typeof InputUnit.Type

export interface Source {
  /** The format's name, as the registry (`sources/index.ts`) knows it. */
  readonly format: string
  readonly path: string
  /** Column names when the format declares them (CSV header, Parquet schema). */
  readonly columns: Effect.Effect<ReadonlyArray<string> | undefined, SourceError>
  /** The columns' types, present only for a format that declares them (Parquet's schema). */
  readonly inputTypes?: Effect.Effect<InputTypes | undefined, SourceError>
  /** The whole input, or only `unit` (one of the input's `cut`), its ordinals and lines global. */
  readonly items: (unit?: InputUnit) => Stream.Stream<SourceItem, SourceError>
}

/** What reading an input may take beyond its path (the job's `input` section has these fields). */
export interface SourceOptions {
  /** The text formats' encoding; Parquet strings are UTF-8 by the format's definition. */
  readonly encoding?: Encoding | undefined
  /** CSV: a quote that is not closed properly: reject its row and read on (default), or stop. */
  readonly unclosedQuote?: "reject" | "stop" | undefined
}

/** How many data rows an input has, before it is read as records (the run's progress total). */
export interface RowEstimate {
  readonly rows: number
  /** False when the count may be off (CSV: a row whose quoting is broken). */
  readonly exact: boolean
}

/** What the fingerprint's pass counts (see fingerprint.ts): rows, not line breaks inside quotes; non-blank lines. */
export interface CountOptions {
  readonly quoted?: boolean
  readonly skipBlank?: boolean
}

/** One input format: a registry entry in `sources/index.ts`. */
export interface SourceFormat {
  readonly name: string
  /** File extensions that choose this format when the job names none. */
  readonly extensions: ReadonlyArray<string>
  readonly open: (path: string, options: SourceOptions) => Source
  /** How the fingerprint's pass over the bytes counts this format's rows (its `lines`). */
  readonly count: CountOptions
  /** The data rows, from the lines the fingerprint's pass counted (or the file's own metadata). */
  readonly rowEstimate: (path: string, counted: number) => Effect.Effect<RowEstimate, SourceError>
  /**
   * Cuts the input into units of about `targetRecords` data rows each (fewer where records are
   * long, more where a row group is large), in file order, covering the whole file: at least one.
   */
  readonly cut: (
    path: string,
    options: SourceOptions,
    targetRecords: number
  ) => Effect.Effect<ReadonlyArray<InputUnit>, SourceError>
}

/** A JSON-friendly value: BigInt → number when safe (else string), Date → ISO text, bytes → base64. */
export const toPlain = (value: unknown): unknown => {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (value instanceof Date) return value.toISOString()
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64")
  if (Array.isArray(value)) return value.map(toPlain)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toPlain(v)]))
  }
  return value
}
