/**
 * Parquet through hyparquet (+ hyparquet-compressors for zstd, gzip, brotli, lz4): reads what
 * DuckDB and pyarrow write (format version 2, data page v2, dictionary encoding), one row group
 * at a time so memory is bounded by the largest row group, not the file.
 * (parquetjs-lite, the package first named, refuses version-2 files: see README.)
 * Strings are decoded strictly: a row whose STRING column (or a string nested in a list or struct)
 * holds bytes that are not UTF-8 is a reject naming the column, never sent with U+FFFD. An
 * unannotated BYTE_ARRAY (a BLOB, binary by nature) is still read as text, invalid bytes replaced.
 */
import {
  asyncBufferFromFile,
  type FileMetaData,
  parquetMetadataAsync,
  parquetReadObjects,
  parquetSchema
} from "hyparquet"
import { compressors } from "hyparquet-compressors"
import { Effect, Stream } from "effect"
import { ioReason } from "../input-access.ts"
import type { InputTypes } from "../input-types.ts"
import { type InputUnit, type Source, SourceError, type SourceFormat, type SourceItem, toPlain } from "../source.ts"
import { traceRead } from "../read-trace.ts"

/** Bytes a string column held that are not UTF-8 (kept to be named, never sent). */
class InvalidUtf8 {
  constructor(readonly bytes: Uint8Array) {}
}
const strict = new TextDecoder("utf-8", { fatal: true })
const lossy = new TextDecoder("utf-8")
const parsers = {
  stringFromBytes: (bytes: Uint8Array | undefined): string | InvalidUtf8 | undefined => {
    if (!bytes) return bytes
    try {
      return strict.decode(bytes)
    } catch {
      return new InvalidUtf8(bytes)
    }
  }
}

const hasInvalid = (v: unknown): boolean =>
  v instanceof InvalidUtf8 ||
  (Array.isArray(v)
    ? v.some(hasInvalid)
    : v !== null &&
      typeof v === "object" &&
      !(v instanceof Uint8Array) &&
      !(v instanceof Date) &&
      Object.values(v).some(hasInvalid))

const replaceInvalid = (v: unknown): unknown =>
  v instanceof InvalidUtf8
    ? lossy.decode(v.bytes)
    : Array.isArray(v)
      ? v.map(replaceInvalid)
      : v !== null && typeof v === "object" && !(v instanceof Uint8Array) && !(v instanceof Date)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replaceInvalid(x)]))
        : v

/** A row as a record, or a reject naming the string columns with bytes that are not UTF-8. */
const toItem = (row: Record<string, unknown>, ordinal: number, blobColumns: ReadonlySet<string>): SourceItem => {
  let invalid: Array<string> | undefined
  let fixed: Record<string, unknown> | undefined
  for (const k in row) {
    const v = row[k]
    if (v === null || typeof v !== "object" || !hasInvalid(v)) continue
    if (blobColumns.has(k)) (fixed ??= { ...row })[k] = replaceInvalid(v)
    else (invalid ??= []).push(k)
  }
  const line = ordinal + 1
  if (invalid !== undefined) {
    const raw = JSON.stringify(toPlain(replaceInvalid(row))).slice(0, 2000)
    return {
      _tag: "Reject",
      ordinal,
      line,
      reason: `invalid UTF-8 in column${invalid.length > 1 ? "s" : ""} ${invalid.map((c) => JSON.stringify(c)).join(", ")} of row ${line}`,
      raw
    }
  }
  return { _tag: "Record", ordinal, line, fields: toPlain(fixed ?? row) as Record<string, unknown> }
}

const readError = (path: string) => (e: unknown) =>
  new SourceError({ path, detail: `cannot read Parquet: ${ioReason(e)}` })

/** The file's footer (schema, row groups): one read of its end. */
const metadataOf = (path: string) =>
  Effect.tryPromise({
    try: async () => {
      const file = await asyncBufferFromFile(path)
      return { file, metadata: await parquetMetadataAsync(file) }
    },
    catch: readError(path)
  })

/** The row groups' row ranges [start, end), in file order. */
const rowGroups = (metadata: FileMetaData): ReadonlyArray<{ readonly start: number; readonly end: number }> => {
  const groups: Array<{ start: number; end: number }> = []
  let start = 0
  for (const rg of metadata.row_groups) {
    const n = Number(rg.num_rows)
    groups.push({ start, end: start + n })
    start += n
  }
  return groups
}

export const parquetSource = (path: string): Source => ({
  format: "parquet",
  path,
  columns: Effect.map(metadataOf(path), ({ metadata }) => parquetSchema(metadata).children.map((c) => c.element.name)),
  inputTypes: Effect.map(metadataOf(path), ({ metadata }): InputTypes => ({
    _tag: "Parquet",
    schema: metadata.schema.slice(1)
  })),
  // A unit is whole row groups: its rows are read as the full read reads them, a group at a time.
  items: (unit?: InputUnit) =>
    Stream.unwrap(
      Effect.suspend(() => {
        traceRead("records", path)
        return metadataOf(path)
      }).pipe(
        Effect.map(({ file, metadata }) => {
          const groups = rowGroups(metadata).filter(
            (g) => unit === undefined || (g.start >= unit.start && g.end <= unit.end && g.end > g.start)
          )
          // Unannotated BYTE_ARRAY columns (BLOBs): binary, read as text as before.
          const blobColumns = new Set(
            parquetSchema(metadata)
              .children.filter(
                (c) =>
                  c.element.type === "BYTE_ARRAY" &&
                  c.element.converted_type === undefined &&
                  c.element.logical_type === undefined
              )
              .map((c) => c.element.name)
          )
          return Stream.fromIterable(groups).pipe(
            Stream.mapEffect(({ start: rowStart, end: rowEnd }) =>
              Effect.tryPromise({
                try: () => parquetReadObjects({ file, metadata, rowStart, rowEnd, compressors, parsers }),
                catch: (e) =>
                  new SourceError({ path, detail: `cannot read rows ${rowStart}–${rowEnd}: ${(e as Error).message}` })
              }).pipe(Effect.map((rows) => rows.map((row, i) => toItem(row, rowStart + i, blobColumns))))
            ),
            Stream.flattenIterables
          )
        })
      )
    )
})

/** Whole row groups, as many as make `target` rows (a group larger than that is a unit alone). */
const cutRowGroups = (metadata: FileMetaData, target: number): ReadonlyArray<InputUnit> => {
  const units: Array<InputUnit> = []
  let unit: { start: number; end: number } | undefined
  for (const g of rowGroups(metadata)) {
    unit = unit === undefined ? { ...g } : { start: unit.start, end: g.end }
    if (unit.end - unit.start >= target) {
      units.push({ ...unit, firstOrdinal: unit.start, firstLine: unit.start + 1, rows: unit.end - unit.start })
      unit = undefined
    }
  }
  if (unit !== undefined || units.length === 0) {
    const { start, end } = unit ?? { start: 0, end: 0 }
    units.push({ start, end, firstOrdinal: start, firstLine: start + 1, rows: end - start })
  }
  return units
}

export const parquetFormat: SourceFormat = {
  name: "parquet",
  extensions: [".parquet"],
  open: (path) => parquetSource(path),
  // The fingerprint's count of lines means nothing here: the footer holds the row count.
  count: {},
  rowEstimate: (path) =>
    Effect.map(metadataOf(path), ({ metadata }) => ({ rows: Number(metadata.num_rows), exact: true })),
  cut: (path, _options, target) =>
    Effect.map(metadataOf(path), ({ metadata }) => cutRowGroups(metadata, Math.max(1, target)))
}
