/**
 * CSV through csv-parse, streaming: BOM, CRLF and quoted newlines handled; a malformed row (bad
 * quoting, wrong number of fields) becomes a reject with its line and the parser's reason, and
 * the rest of the file goes on. `relax_quotes` is off on purpose: it merges rows silently.
 */
import { parse } from "csv-parse"
import { Stream } from "effect"
import { createReadStream } from "node:fs"
import { type Source, SourceError, type SourceItem } from "./source.ts"

const MAX_RECORD_BYTES = 16 * 1024 * 1024

export const csvSource = (path: string): Source => {
  const open = () => {
    const skipped: Array<{ line: number; reason: string; raw: string }> = []
    const parser = createReadStream(path).pipe(
      parse({
        columns: true,
        bom: true,
        raw: true,
        info: true,
        relax_column_count: true,
        skip_records_with_error: true,
        max_record_size: MAX_RECORD_BYTES,
        on_skip: (error: Error & { lines?: number; raw?: string } | undefined, raw?: string) => {
          if (error) skipped.push({ line: error.lines ?? 0, reason: error.message, raw: raw ?? error.raw ?? "" })
        }
      })
    )
    return { parser, skipped }
  }

  return {
    format: "csv",
    path,
    columns: async () => {
      const { parser } = open()
      for await (const row of parser as AsyncIterable<{ record: Record<string, string> }>) {
        parser.destroy()
        return Object.keys(row.record)
      }
      return undefined
    },
    items: () =>
      Stream.suspend(() => {
        const { parser, skipped } = open()
        let ordinal = 0
        const drainSkipped = (beforeLine: number): Array<SourceItem> => {
          const out: Array<SourceItem> = []
          while (skipped.length > 0 && skipped[0]!.line <= beforeLine) {
            const s = skipped.shift()!
            out.push({ _tag: "Reject", ordinal: ordinal++, line: s.line, reason: s.reason, raw: s.raw })
          }
          return out
        }
        type Row = { record: Record<string, string>; raw: string; info: { lines: number; error?: Error; columns?: unknown } }
        const rows = Stream.fromAsyncIterable(
          parser as AsyncIterable<Row>,
          (e) => new SourceError({ path, detail: `cannot read CSV: ${(e as Error).message}` })
        ).pipe(
          Stream.mapConcat((row): Array<SourceItem> => {
            // info.lines is the line where the record ends; a record starts after the previous one.
            const endLine = row.info.lines
            const startLine = endLine - (row.raw.match(/\n/g)?.length ?? 0) + (row.raw.endsWith("\n") ? 1 : 0)
            const items = drainSkipped(startLine)
            if (row.info.error) {
              items.push({ _tag: "Reject", ordinal: ordinal++, line: startLine, reason: row.info.error.message, raw: row.raw.replace(/\r?\n$/, "") })
            } else {
              items.push({ _tag: "Record", ordinal: ordinal++, line: startLine, fields: row.record })
            }
            return items
          })
        )
        return Stream.concat(rows, Stream.suspend(() => Stream.fromIterable(drainSkipped(Number.MAX_SAFE_INTEGER))))
      })
  }
}
