/**
 * Sources stream an input file as items in file order: a record (its fields) or a reject (a row
 * that could not be read, with its line and reason). Every data row gets the next ordinal,
 * whether read or rejected, so ordinals are stable between passes over the same file.
 */
import { Data, type Stream } from "effect"
import { extname } from "node:path"
import type { InputTypes } from "./input-types.ts"
import { ExitCode } from "../exit-code.ts"

export type Format = "csv" | "jsonl" | "parquet"

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

export interface Source {
  readonly format: Format
  readonly path: string
  /** Column names when the format declares them (CSV header, Parquet schema). */
  readonly columns: () => Promise<ReadonlyArray<string> | undefined>
  /** The columns' types when the format declares them (Parquet's schema). */
  readonly inputTypes?: () => Promise<InputTypes | undefined>
  readonly items: () => Stream.Stream<SourceItem, SourceError>
}

export const formatOf = (path: string, explicit?: Format): Format | undefined => {
  if (explicit) return explicit
  switch (extname(path).toLowerCase()) {
    case ".csv":
      return "csv"
    case ".jsonl":
    case ".ndjson":
      return "jsonl"
    case ".parquet":
      return "parquet"
    default:
      return undefined
  }
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
