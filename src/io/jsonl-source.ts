/**
 * JSON Lines, streaming with backpressure (the file is read only as fast as records are taken;
 * readline's async iterator would read ahead without bound): one object per line; a bad or
 * non-object line is a reject with its line number; blank lines are skipped.
 */
import { Option, Stream } from "effect"
import { DefaultEncoding, type Encoding, openDecoded } from "./encoding.ts"
import { type Source, SourceError, type SourceItem } from "./source.ts"

export const jsonlSource = (path: string, encoding: Encoding = DefaultEncoding): Source => ({
  format: "jsonl",
  path,
  columns: async () => undefined,
  items: () =>
    Stream.suspend(() => {
      let line = 0
      let ordinal = 0
      const input = openDecoded(path, encoding)
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
          const undecodable = input.invalid(line, line, text)
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
