/**
 * JSON Lines, streaming with backpressure (the file is read only as fast as records are taken;
 * readline's async iterator would read ahead without bound): one object per line; a bad or
 * non-object line is a reject with its line number; blank lines are skipped.
 * A unit is a range of whole lines: read from its first line on, numbered from it.
 */
import { Effect, Option, Stream } from "effect"
import { DefaultEncoding, type Encoding, openDecoded } from "../encoding.ts"
import { ioReason } from "../input-access.ts"
import {
  type InputUnit,
  type Source,
  SourceError,
  type SourceFormat,
  type SourceItem,
  type SourceOptions
} from "../source.ts"
import { closeUnits, isBlankLine, scanLines } from "./lines.ts"

export const jsonlSource = (path: string, encoding: Encoding = DefaultEncoding): Source => ({
  format: "jsonl",
  path,
  columns: Effect.succeed(undefined),
  items: (unit?: InputUnit) =>
    Stream.suspend(() => {
      // Lines and ordinals as the whole file numbers them: a unit starts at its first line.
      const lineBase = unit === undefined ? 0 : unit.firstLine - 1
      let line = lineBase
      let ordinal = unit?.firstOrdinal ?? 0
      const input = openDecoded(
        path,
        encoding,
        unit === undefined ? {} : { ranges: [[unit.start, unit.end]], lineOf: (l) => l + lineBase }
      )
      return Stream.fromAsyncIterable(
        input.stream as AsyncIterable<Uint8Array>,
        (e) => new SourceError({ path, detail: `cannot read JSONL: ${(e as Error).message}` })
      ).pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.filterMap((text): Option.Option<SourceItem> => {
          line++
          const trimmed = line === 1 ? text.replace(/^\uFEFF/, "").trim() : text.trim()
          if (trimmed === "") return Option.none()
          const undecodable = input.invalid(line - lineBase, line - lineBase, text)
          if (undecodable !== undefined)
            return Option.some({
              _tag: "Reject",
              ordinal: ordinal++,
              line,
              reason: undecodable,
              raw: text.slice(0, 2000)
            })
          let value: unknown
          try {
            value = JSON.parse(trimmed)
          } catch (e) {
            return Option.some({
              _tag: "Reject",
              ordinal: ordinal++,
              line,
              reason: `invalid JSON: ${(e as Error).message}`,
              raw: text.slice(0, 2000)
            })
          }
          if (value === null || typeof value !== "object" || Array.isArray(value)) {
            const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value
            return Option.some({
              _tag: "Reject",
              ordinal: ordinal++,
              line,
              reason: `expected a JSON object, got ${kind}`,
              raw: text.slice(0, 2000)
            })
          }
          return Option.some({ _tag: "Record", ordinal: ordinal++, line, fields: value as Record<string, unknown> })
        })
      )
    })
})

/** Cuts before a line once a unit has `target` data rows (every line that is not blank is one). */
const cutJsonl = async (path: string, encoding: Encoding, target: number): Promise<ReadonlyArray<InputUnit>> => {
  const units: Array<InputUnit> = []
  let unit = { start: 0, firstOrdinal: 0, firstLine: 1, rows: 0 }
  let line = 0
  let ordinal = 0
  const size = await scanLines(path, encoding, (offset, bytes) => {
    line++
    if (unit.rows >= target) {
      units.push({ ...unit, end: offset })
      unit = { start: offset, firstOrdinal: ordinal, firstLine: line, rows: 0 }
    }
    if (isBlankLine(bytes, encoding, line === 1)) return
    ordinal++
    unit.rows++
  })
  return closeUnits(units, { ...unit, end: size })
}

export const jsonlFormat: SourceFormat = {
  name: "jsonl",
  extensions: [".jsonl", ".ndjson"],
  open: (path: string, options: SourceOptions) => jsonlSource(path, options.encoding),
  count: { skipBlank: true },
  // Every line with something on it is a data row (a record or a reject): exact.
  rowEstimate: (_path, counted) => Effect.succeed({ rows: counted, exact: true }),
  cut: (path, options, target) =>
    Effect.tryPromise({
      try: () => cutJsonl(path, options.encoding ?? DefaultEncoding, Math.max(1, target)),
      catch: (e) => new SourceError({ path, detail: `cannot read JSONL: ${ioReason(e)}` })
    })
}
