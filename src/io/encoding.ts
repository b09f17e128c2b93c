/**
 * Text inputs (CSV, JSON Lines) in the encodings corpora come in, decoded strictly: a record
 * holding bytes that are not valid in the input's encoding is rejected with its line, never sent
 * with U+FFFD in place of what the bytes meant (that was a silent change of the text judged,
 * translated or embedded).
 *
 * - UTF-8 (the default): the bytes pass through unchanged; each physical line is checked with
 *   Node's `isUtf8` (native) and the numbers of invalid lines are kept; a record spanning one of
 *   them is rejected. The lines are counted as the sources count them (each \n).
 * - shift_jis, cp932, euc-jp, utf-16le, latin1: decoded by iconv-lite. It decodes bytes it cannot
 *   map to U+FFFD, which none of the Japanese encodings can express; so a record with U+FFFD after
 *   decoding held invalid bytes. (In UTF-16LE a U+FFFD written on purpose is rejected as well.)
 *   latin1 maps every byte: nothing is invalid.
 */
import { Schema } from "effect"
import { isUtf8 } from "node:buffer"
import { createReadStream } from "node:fs"
import { traceRead } from "./read-trace.ts"
import { createRequire } from "node:module"
import { Readable, Transform } from "node:stream"

export const Encodings = ["utf-8", "shift_jis", "cp932", "euc-jp", "utf-16le", "latin1"] as const
export const Encoding = Schema.Literal(...Encodings)
export type Encoding = typeof Encoding.Type
export const DefaultEncoding: Encoding = "utf-8"

const NOT_UTF8 = "invalid UTF-8 on line"

/** Whether a rejected row's reason is bytes that are not UTF-8 in a text input read as UTF-8. */
export const isNotUtf8 = (reason: string) => reason.startsWith(NOT_UTF8)

/**
 * The one line a run's summary, `plan` and the report give when most rejected rows are not UTF-8:
 * the file is most likely in another encoding (a Shift_JIS export read as UTF-8), not broken row
 * by row.
 */
export const encodingHint = (rejected: number, notUtf8: number): string | undefined =>
  notUtf8 * 2 > rejected
    ? `most rejected rows are not UTF-8 (${notUtf8} of ${rejected}): set input.encoding (e.g. shift_jis) or --input-encoding`
    : undefined

export interface DecodedInput {
  /** UTF-8 bytes for the parser. */
  readonly stream: Readable
  /** Why a record on lines first..last (1-based) with this text is not valid input; undefined when it is. */
  readonly invalid: (first: number, last: number, text: string) => string | undefined
}

// iconv-lite is CommonJS with its tables: loaded only when a job reads another encoding than UTF-8.
type Iconv = {
  readonly decodeStream: (encoding: string, options?: { readonly stripBOM?: boolean }) => Transform
  readonly decode: (bytes: Buffer, encoding: string, options?: { readonly stripBOM?: boolean }) => string
}
let iconv: Iconv | undefined
export const loadIconv = (): Iconv => (iconv ??= createRequire(import.meta.url)("iconv-lite") as Iconv)

/** Passes UTF-8 bytes through, noting the lines that are not valid UTF-8. */
const utf8Checker = (invalidLines: Set<number>) => {
  let line = 1
  let partial: Array<Buffer> = []
  const check = (bytes: Buffer) => {
    if (!isUtf8(bytes)) invalidLines.add(line)
  }
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0
      const last = chunk.lastIndexOf(10)
      // The common case: the chunk's whole lines are valid at once (a line break is never part of
      // a multi-byte character), so only the lines are counted; a line is checked alone otherwise.
      if (last !== -1 && partial.length === 0 && isUtf8(chunk.subarray(0, last))) {
        for (let nl = chunk.indexOf(10); nl !== -1 && nl <= last; nl = chunk.indexOf(10, nl + 1)) line++
        start = last + 1
      }
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl)
        check(partial.length === 0 ? piece : Buffer.concat([...partial, piece]))
        partial = []
        line++
        start = nl + 1
      }
      if (start < chunk.length) partial.push(chunk.subarray(start))
      done(null, chunk)
    },
    flush(done) {
      if (partial.length > 0) check(Buffer.concat(partial))
      done()
    }
  })
}

export interface DecodeOptions {
  readonly highWaterMark?: number
  /** Only the first line is wanted (a CSV header), not the whole file. */
  readonly header?: boolean
  /** Byte ranges [start, end) read one after the other (a unit, behind its CSV header); default the whole file. */
  readonly ranges?: ReadonlyArray<readonly [number, number]>
  /** The file's line number of a line of the bytes read (1-based), for the reasons given. */
  readonly lineOf?: (line: number) => number
}

const sameLine = (line: number) => line

/** The bytes of `ranges`, in order, as one stream. */
const readRanges = (path: string, ranges: ReadonlyArray<readonly [number, number]>, highWaterMark: number): Readable =>
  Readable.from(
    (async function* () {
      for (const [start, end] of ranges) {
        if (end <= start) continue
        for await (const chunk of createReadStream(path, { start, end: end - 1, highWaterMark })) yield chunk as Buffer
      }
    })(),
    { objectMode: false }
  )

export const openDecoded = (path: string, encoding: Encoding, options: DecodeOptions = {}): DecodedInput => {
  const { highWaterMark = 256 * 1024, header = false, ranges, lineOf = sameLine } = options
  traceRead(header ? "header" : "records", path)
  const file: Readable =
    ranges === undefined ? createReadStream(path, { highWaterMark }) : readRanges(path, ranges, highWaterMark)
  if (encoding === "utf-8") {
    const invalidLines = new Set<number>()
    const checker = utf8Checker(invalidLines)
    file.on("error", (e) => checker.destroy(e))
    return {
      stream: file.pipe(checker),
      invalid: (first, last) => {
        if (invalidLines.size === 0) return undefined
        for (let l = first; l <= last; l++)
          if (invalidLines.has(l))
            return `${NOT_UTF8} ${lineOf(l)} (set input.encoding if the file is in another encoding)`
        return undefined
      }
    }
  }
  // A byte order mark is the file's first bytes: a unit further on starts with text, kept as is.
  const decoder = loadIconv().decodeStream(encoding, { stripBOM: (ranges?.[0]?.[0] ?? 0) === 0 })
  const toUtf8 = new Transform({
    transform: (text: string | Buffer, _e, done) =>
      done(null, typeof text === "string" ? Buffer.from(text, "utf8") : text)
  })
  file.on("error", (e) => toUtf8.destroy(e))
  decoder.on("error", (e) => toUtf8.destroy(e))
  return {
    stream: file.pipe(decoder).pipe(toUtf8),
    invalid: (first, last, text) =>
      encoding !== "latin1" && text.includes("\uFFFD")
        ? `bytes that are not valid ${encoding} on line${first === last ? ` ${lineOf(first)}` : `s ${lineOf(first)}–${lineOf(last)}`}`
        : undefined
  }
}
