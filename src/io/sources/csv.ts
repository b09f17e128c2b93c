/**
 * CSV through csv-parse, streaming: BOM, CRLF and quoted newlines handled; a malformed row (bad
 * quoting, wrong number of fields) becomes a reject with its line and the parser's reason, and
 * the rest of the file goes on. `relax_quotes` is off on purpose: it merges rows silently.
 *
 * A unit past the first is read behind the file's header line (so the header, the BOM and the
 * line-break style are what the full read sees), its lines numbered from its first line.
 */
import { type Parser, parse } from "csv-parse"
import { parse as parseSync } from "csv-parse/sync"
import { Effect, Stream } from "effect"
import { open } from "node:fs/promises"
import { DefaultEncoding, type Encoding, openDecoded } from "../encoding.ts"
import { ioReason } from "../input-access.ts"
import { csvResync, resyncLines, UnclosedQuote } from "../csv-resync.ts"
import {
  type InputUnit,
  type Source,
  SourceError,
  type SourceFormat,
  type SourceItem,
  type SourceOptions
} from "../source.ts"
import { closeUnits, decodeLine, lineEnd, scanLines } from "./lines.ts"

const MAX_RECORD_BYTES = 16 * 1024 * 1024

const sameLine = (line: number) => line

/** How many times the character `code` occurs in `text`. */
const countOf = (text: string, char: string): number => {
  let n = 0
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++
  return n
}

export interface CsvOptions {
  /** A quote that is not closed properly: reject its row and read on (default), or stop the read. */
  readonly unclosedQuote?: "reject" | "stop" | undefined
}

const readError = (path: string) => (e: unknown) => new SourceError({ path, detail: `cannot read CSV: ${ioReason(e)}` })

/** The byte offset where the header line ends (after its line break); the file's size when it has none. */
const headerEnd = async (path: string, encoding: Encoding): Promise<number> => {
  const file = await open(path, "r")
  try {
    let read = Buffer.alloc(0)
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024)
      const { bytesRead } = await file.read(chunk, 0, chunk.length, read.length)
      read = Buffer.concat([read, chunk.subarray(0, bytesRead)])
      const end = lineEnd(read, 0, encoding === "utf-16le")
      if (end !== -1) return end
      if (bytesRead === 0) return read.length
    }
  } finally {
    await file.close()
  }
}

export const csvSource = (path: string, encoding: Encoding = DefaultEncoding, options: CsvOptions = {}): Source => {
  /**
   * csv-parse counts every CR as a line too (a CRLF inside quotes, or ending a row of an LF file,
   * as two lines; a lone CR as one), all but the CR of the CRLF that ends a row of a CRLF file;
   * so its line numbers drift after such a row. `drift` (updated in parse order, in on_record)
   * corrects them: lines are the file's, counted by LF. A bad quote can raise several skip
   * events for one row: one reject per line is kept.
   * `ranges`/`lineOf`: a unit's bytes behind the header, and the file's line of a line read.
   */
  const openParser = (ranges?: ReadonlyArray<readonly [number, number]>, lineOf?: (line: number) => number) => {
    const skipped: Array<{ line: number; reason: string; raw: string }> = []
    let drift = 0
    const input = openDecoded(path, encoding, { ranges, lineOf })
    type Raw = { record: Record<string, string>; raw: string; info: { lines: number; error?: Error } }
    const resync = csvResync(MAX_RECORD_BYTES, { unclosedQuote: options.unclosedQuote, lineOf })
    input.stream.on("error", (e) => resync.transform.destroy(e))
    const parser: Parser = parse({
      columns: true,
      bom: true,
      raw: true,
      info: true,
      relax_column_count: true,
      skip_records_with_error: true,
      max_record_size: MAX_RECORD_BYTES,
      on_record: (row: Raw): Raw & { line: number } => {
        // The row without the line break that ended it (raw holds a CRLF's CR only, an LF whole).
        const crlf = parser.options.record_delimiter[0]?.length === 2
        // A CR ending the file's last row is not counted yet when the row is read.
        const text = row.raw.endsWith(crlf ? "\r" : "\n") || row.raw.endsWith("\r") ? row.raw.slice(0, -1) : row.raw
        drift += countOf(text, "\r")
        const line = row.info.lines - drift - countOf(text, "\n")
        return { ...row, line }
      },
      on_skip: (error: (Error & { lines?: number; raw?: string }) | undefined, raw?: string) => {
        if (!error) return
        const line = (error.lines ?? 0) - drift
        if (skipped.length > 0 && skipped[skipped.length - 1]!.line === line) return
        // The reason names the line as the file numbers it, not as csv-parse counted it.
        const reason = error.message.replace(` line ${error.lines}`, ` line ${(lineOf ?? sameLine)(line)}`)
        skipped.push({ line, reason, raw: raw ?? error.raw ?? "" })
      }
    })
    input.stream.pipe(resync.transform).pipe(parser)
    // A read error (the file vanished, a directory) reaches the reader as the parser's error.
    resync.transform.on("error", (e) => parser.destroy(e))
    return { parser, skipped, invalid: input.invalid, brokenRow: resync.brokenRow }
  }

  /** The items of the bytes `ranges` (the whole file when undefined), the first numbered `firstOrdinal`. */
  const read = (
    ranges: ReadonlyArray<readonly [number, number]> | undefined,
    firstOrdinal: number,
    lineOf: (line: number) => number
  ) =>
    Stream.suspend(() => {
      const { parser, skipped, invalid, brokenRow } = openParser(ranges, ranges === undefined ? undefined : lineOf)
      let ordinal = firstOrdinal
      const drainSkipped = (beforeLine: number): Array<SourceItem> => {
        const out: Array<SourceItem> = []
        while (skipped.length > 0 && skipped[0]!.line <= beforeLine) {
          const s = skipped.shift()!
          out.push({ _tag: "Reject", ordinal: ordinal++, line: lineOf(s.line), reason: s.reason, raw: s.raw })
        }
        return out
      }
      type Row = { record: Record<string, string>; raw: string; line: number; info: { error?: Error } }
      const rows = Stream.fromAsyncIterable(
        parser as AsyncIterable<Row>,
        (e) =>
          new SourceError({
            path,
            detail: e instanceof UnclosedQuote ? e.message : `cannot read CSV: ${(e as Error).message}`
          })
      ).pipe(
        Stream.mapConcat((row): Array<SourceItem> => {
          const items = drainSkipped(row.line)
          const broken = brokenRow(Object.values(row.record)[0])
          if (broken !== undefined) {
            items.push({
              _tag: "Reject",
              ordinal: ordinal++,
              line: broken.line,
              reason: broken.reason,
              raw: broken.raw
            })
            return items
          }
          const body = row.raw.replace(/\r?\n?$/, "")
          // A blank line where the header has several columns carries no data (as in JSON
          // Lines): skipped, not a reject. In a one-column CSV it is a row with an empty value,
          // kept. (csv-parse's skip_empty_lines stops counting the lines it skips: lines drift.)
          if (body === "" && row.info.error) return items
          const undecodable = invalid(row.line, row.line + (body.match(/\n/g)?.length ?? 0), body)
          if (undecodable !== undefined) {
            items.push({
              _tag: "Reject",
              ordinal: ordinal++,
              line: lineOf(row.line),
              reason: undecodable,
              raw: body.slice(0, 2000)
            })
          } else if (row.info.error) {
            const reason = row.info.error.message.replace(/ on line \d+$/, "")
            items.push({
              _tag: "Reject",
              ordinal: ordinal++,
              line: lineOf(row.line),
              reason,
              raw: row.raw.replace(/\r?\n?$/, "")
            })
          } else {
            items.push({ _tag: "Record", ordinal: ordinal++, line: lineOf(row.line), fields: row.record })
          }
          return items
        })
      )
      return Stream.concat(
        rows,
        Stream.suspend(() => Stream.fromIterable(drainSkipped(Number.MAX_SAFE_INTEGER)))
      )
    })

  return {
    format: "csv",
    path,
    // The header line alone (a file with a header and no rows still declares its columns).
    columns: Effect.async<ReadonlyArray<string> | undefined, SourceError>((resume) => {
      const input = openDecoded(path, encoding, { header: true }).stream
      const parser = parse({ bom: true, to_line: 1, relax_column_count: true, max_record_size: MAX_RECORD_BYTES })
      let header: ReadonlyArray<string> | undefined
      const fail = (e: Error) =>
        resume(Effect.fail(new SourceError({ path, detail: `cannot read the input's columns: ${ioReason(e)}` })))
      input.on("error", fail)
      parser.on("error", fail)
      parser.on("data", (row: Array<string>) => void (header ??= row))
      parser.on("end", () => resume(Effect.succeed(header)))
      input.pipe(parser)
      return Effect.sync(() => {
        input.destroy()
        parser.destroy()
      })
    }),
    items: (unit?: InputUnit) => {
      if (unit === undefined) return read(undefined, 0, sameLine)
      if (unit.start === 0) return read([[0, unit.end]], unit.firstOrdinal, sameLine)
      // Behind the header: the unit's second line read is the file's `firstLine`.
      const lineOf = (line: number) => (line === 1 ? 1 : line - 2 + unit.firstLine)
      return Stream.unwrap(
        Effect.map(Effect.tryPromise({ try: () => headerEnd(path, encoding), catch: readError(path) }), (header) =>
          read(
            [
              [0, header],
              [unit.start, unit.end]
            ],
            unit.firstOrdinal,
            lineOf
          )
        )
      )
    }
  }
}

/**
 * Cuts at record ends as the full read finds them: the file's lines go through the same
 * resynchronising scanner the reader puts in front of csv-parse, which tells where each record
 * (or rejected row) ends. A plain record (its line breaks all the file's own, no lone CR) is one
 * data row, or none when blank under a header of several columns (the reader skips it); a record
 * the scanner and csv-parse could see differently (a lone CR, an LF in a CRLF file) is counted by
 * reading it alone, as a unit of one record. A header the scanner cannot vouch for (a quote open
 * at its end, a lone CR that csv-parse could take for the line break) leaves the file one unit.
 */
const cutCsv = async (path: string, encoding: Encoding, target: number): Promise<ReadonlyArray<InputUnit>> => {
  const units: Array<InputUnit> = []
  let unit = { start: 0, firstOrdinal: 0, firstLine: 1, rows: 0 }
  let ordinal = 0
  let headerColumns = 0
  let crlf = false
  let whole = false
  // Records counted as one row until read alone: the unit they are in, where they are.
  const unsure: Array<{ readonly unit: number; readonly record: InputUnit }> = []
  // The end offsets of the lines scanned and not yet behind a record end: ends[i] is line base + i's.
  let ends: Array<number> = []
  let base = 1
  let recordStart = 0
  // The line being fed to the scanner.
  let line = 0
  const scanner = resyncLines(MAX_RECORD_BYTES, {
    onRecord: (first, last, marker, text) => {
      const end = ends[last - base]!
      ends = ends.slice(last + 1 - base)
      base = last + 1
      const start = recordStart
      recordStart = end
      if (first === 1) return
      let n = 1
      if (!marker && !plain(text, crlf)) {
        unsure.push({ unit: units.length, record: { start, end, firstOrdinal: 0, firstLine: first, rows: 1 } })
      } else if (!marker && headerColumns > 1 && text.replace(/\r?\n$/, "") === "") {
        n = 0
      }
      unit.rows += n
      ordinal += n
      // Not inside lines read ahead: a broken quote's row is judged by the lines after it (where
      // the quoting broke), which must then be in its unit too.
      if (unit.rows >= target && !whole && last === line) {
        units.push({ ...unit, end })
        unit = { start: end, firstOrdinal: ordinal, firstLine: last + 1, rows: 0 }
      }
    }
  })
  const size = await scanLines(path, encoding, (offset, bytes) => {
    line++
    const text = decodeLine(bytes, encoding, line === 1)
    if (line === 1) {
      const header = headerOf(text)
      headerColumns = header?.length ?? 0
      crlf = text.endsWith("\r\n")
      whole = header === undefined || text.replace(/\r?\n$/, "").includes("\r") || !text.endsWith("\n")
    }
    ends.push(offset + bytes.length)
    scanner.next([text])
  })
  scanner.finish("")
  const source = csvSource(path, encoding)
  const count = (part?: InputUnit) => Effect.runPromise(Stream.runCount(source.items(part)))
  const cut = [...units, { ...unit, end: size }]
  // Behind a header the scanner cannot vouch for, its count is not trusted: the rows are read.
  if (whole) return [{ ...cut[0]!, rows: await count() }]
  for (const u of unsure) {
    const rows = await count(u.record)
    cut[u.unit] = { ...cut[u.unit]!, rows: cut[u.unit]!.rows + rows - 1 }
  }
  // Ordinals from the counts; a unit left without a row (its one record read as none) joins the next.
  const kept: Array<InputUnit> = []
  let next = 0
  let from: InputUnit | undefined
  for (const u of cut.slice(0, -1)) {
    const start = from ?? u
    if (u.rows === 0) from = start
    else {
      kept.push({ ...u, start: start.start, firstLine: start.firstLine, firstOrdinal: next })
      from = undefined
    }
    next += u.rows
  }
  const last = cut[cut.length - 1]!
  const start = from ?? last
  return closeUnits(kept, { ...last, start: start.start, firstLine: start.firstLine, firstOrdinal: next })
}

/** A record csv-parse reads as the scanner does: no CR but those of the file's CRLF line breaks (none in an LF file). */
const plain = (text: string, crlf: boolean): boolean => {
  const cr = text.indexOf("\r")
  if (!crlf) return cr === -1
  let lf = 0
  let pairs = 0
  let crs = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    lf++
    if (text.charCodeAt(i - 1) === 13) pairs++
  }
  for (let i = cr; i !== -1; i = text.indexOf("\r", i + 1)) crs++
  return lf === pairs && crs === pairs
}

/** The header's fields when its line is a whole record by itself (no quote left open), else undefined. */
const headerOf = (text: string): ReadonlyArray<string> | undefined => {
  try {
    const rows = parseSync(text, { bom: true, relax_column_count: true }) as Array<Array<string>>
    return rows.length === 1 ? rows[0] : undefined
  } catch {
    return undefined
  }
}

export const csvFormat: SourceFormat = {
  name: "csv",
  extensions: [".csv"],
  open: (path: string, options: SourceOptions) =>
    csvSource(path, options.encoding, { unclosedQuote: options.unclosedQuote }),
  count: { quoted: true },
  // Rows are lines outside quotes, less the header: an estimate where a row's quoting is broken.
  rowEstimate: (_path, counted) => Effect.succeed({ rows: Math.max(0, counted - 1), exact: false }),
  cut: (path, options, target) =>
    Effect.tryPromise({
      try: () => cutCsv(path, options.encoding ?? DefaultEncoding, Math.max(1, target)),
      catch: readError(path)
    })
}
