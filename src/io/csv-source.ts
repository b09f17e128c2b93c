/**
 * CSV through csv-parse, streaming: BOM, CRLF and quoted newlines handled; a malformed row (bad
 * quoting, wrong number of fields) becomes a reject with its line and the parser's reason, and
 * the rest of the file goes on. `relax_quotes` is off on purpose: it merges rows silently.
 */
import { parse } from "csv-parse"
import { Stream } from "effect"
import { DefaultEncoding, type Encoding, openDecoded } from "./encoding.ts"
import { csvResync, UnclosedQuote } from "./csv-resync.ts"
import { type Source, SourceError, type SourceItem } from "./source.ts"

const MAX_RECORD_BYTES = 16 * 1024 * 1024

export interface CsvOptions {
  /** A quote that is not closed properly: reject its row and read on (default), or stop the read. */
  readonly unclosedQuote?: "reject" | "stop" | undefined
}

export const csvSource = (path: string, encoding: Encoding = DefaultEncoding, options: CsvOptions = {}): Source => {
  /**
   * csv-parse counts a CRLF inside quotes as two lines, so its line numbers drift after such a
   * row; `drift` (updated in parse order, in on_record) corrects them. A bad quote can raise
   * several skip events for one row: one reject per line is kept.
   */
  const open = () => {
    const skipped: Array<{ line: number; reason: string; raw: string }> = []
    let drift = 0
    const input = openDecoded(path, encoding)
    type Raw = { record: Record<string, string>; raw: string; info: { lines: number; error?: Error } }
    const resync = csvResync(MAX_RECORD_BYTES, options.unclosedQuote)
    input.stream.on("error", (e) => resync.transform.destroy(e))
    const parser = input.stream.pipe(resync.transform).pipe(
      parse({
        columns: true,
        bom: true,
        raw: true,
        info: true,
        relax_column_count: true,
        skip_records_with_error: true,
        max_record_size: MAX_RECORD_BYTES,
        on_record: (row: Raw) => {
          const body = row.raw.replace(/\r?\n?$/, "")
          drift += body.match(/\r\n/g)?.length ?? 0
          const line = row.info.lines - drift - (body.match(/\n/g)?.length ?? 0)
          return { ...row, line }
        },
        on_skip: (error: (Error & { lines?: number; raw?: string }) | undefined, raw?: string) => {
          if (!error) return
          const line = (error.lines ?? 0) - drift
          if (skipped.length > 0 && skipped[skipped.length - 1]!.line === line) return
          skipped.push({ line, reason: error.message, raw: raw ?? error.raw ?? "" })
        }
      })
    )
    // A read error (the file vanished, a directory) reaches the reader as the parser's error.
    resync.transform.on("error", (e) => parser.destroy(e))
    return { parser, skipped, invalid: input.invalid, brokenRow: resync.brokenRow }
  }

  return {
    format: "csv",
    path,
    // The header line alone (a file with a header and no rows still declares its columns).
    columns: () =>
      new Promise<ReadonlyArray<string> | undefined>((resolve, reject) => {
        const input = openDecoded(path, encoding, undefined, true).stream
        const parser = parse({ bom: true, to_line: 1, relax_column_count: true, max_record_size: MAX_RECORD_BYTES })
        let header: ReadonlyArray<string> | undefined
        input.on("error", reject)
        parser.on("error", reject)
        parser.on("data", (row: Array<string>) => void (header ??= row))
        parser.on("end", () => resolve(header))
        input.pipe(parser)
      }),
    items: () =>
      Stream.suspend(() => {
        const { parser, skipped, invalid, brokenRow } = open()
        let ordinal = 0
        const drainSkipped = (beforeLine: number): Array<SourceItem> => {
          const out: Array<SourceItem> = []
          while (skipped.length > 0 && skipped[0]!.line <= beforeLine) {
            const s = skipped.shift()!
            out.push({ _tag: "Reject", ordinal: ordinal++, line: s.line, reason: s.reason, raw: s.raw })
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
                line: row.line,
                reason: undecodable,
                raw: body.slice(0, 2000)
              })
            } else if (row.info.error) {
              const reason = row.info.error.message.replace(/ on line \d+$/, "")
              items.push({
                _tag: "Reject",
                ordinal: ordinal++,
                line: row.line,
                reason,
                raw: row.raw.replace(/\r?\n?$/, "")
              })
            } else {
              items.push({ _tag: "Record", ordinal: ordinal++, line: row.line, fields: row.record })
            }
            return items
          })
        )
        return Stream.concat(
          rows,
          Stream.suspend(() => Stream.fromIterable(drainSkipped(Number.MAX_SAFE_INTEGER)))
        )
      })
  }
}
