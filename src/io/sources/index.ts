/** The input formats a job can read. A new format: one file in this folder, one line here. */
import { Effect, Stream } from "effect"
import { extname } from "node:path"
import { fingerprintInput } from "../input-access.ts"
import type { InputUnit, RowEstimate, Source, SourceError, SourceFormat, SourceOptions } from "../source.ts"
import { csvFormat } from "./csv.ts"
import { jsonlFormat } from "./jsonl.ts"

/**
 * Parquet's reader and codecs (hyparquet and its compressors) are loaded only when a Parquet
 * file is read: every other command starts without compiling them.
 */
const loadParquet = Effect.promise(() => import("./parquet.ts"))
const lazyParquet: SourceFormat = {
  name: "parquet",
  extensions: [".parquet"],
  count: {},
  open: (path, options) => {
    const source = Effect.map(loadParquet, (m) => m.parquetFormat.open(path, options))
    return {
      format: "parquet",
      path,
      columns: Effect.flatMap(source, (s) => s.columns),
      inputTypes: Effect.flatMap(source, (s) => s.inputTypes ?? Effect.succeed(undefined)),
      items: (unit) => Stream.unwrap(Effect.map(source, (s) => s.items(unit)))
    }
  },
  rowEstimate: (path, counted) => Effect.flatMap(loadParquet, (m) => m.parquetFormat.rowEstimate(path, counted)),
  cut: (path, options, target) => Effect.flatMap(loadParquet, (m) => m.parquetFormat.cut(path, options, target))
}

export const sources = {
  csv: csvFormat,
  jsonl: jsonlFormat,
  parquet: lazyParquet
} as const satisfies Readonly<Record<string, SourceFormat>>

/** An input format's name (the job's `input.format`). */
export type Format = keyof typeof sources
export const inputFormats = Object.keys(sources) as [Format, ...Array<Format>]

/** The format named, else the one whose extension the path has. */
export const formatOf = (path: string, explicit?: Format): Format | undefined => {
  if (explicit) return explicit
  const ext = extname(path).toLowerCase()
  return inputFormats.find((f) => sources[f].extensions.includes(ext))
}

export const openSource = (path: string, format: Format, options: SourceOptions = {}): Source =>
  sources[format].open(path, options)

/**
 * Cuts an input into units of about `targetRecords` data rows, each readable alone by
 * `source.items(unit)`; together, in order, they read as the whole file does.
 */
export const cutUnits = (
  path: string,
  format: Format,
  targetRecords: number,
  options: SourceOptions = {}
): Effect.Effect<ReadonlyArray<InputUnit>, SourceError> => sources[format].cut(path, options, targetRecords)

/** The input's fingerprint and its row estimate, in one pass over its bytes (the run's first read). */
export const measureInput = (
  path: string,
  format: Format
): Effect.Effect<{ readonly fingerprint: string; readonly estimate: RowEstimate }, SourceError> =>
  Effect.gen(function* () {
    const { fingerprint, lines } = yield* fingerprintInput(path, sources[format].count)
    return { fingerprint, estimate: yield* sources[format].rowEstimate(path, lines) }
  })
