/**
 * A text input's physical lines as bytes, each with its offset, in one streaming pass: what the
 * cut of a CSV or JSON Lines input into units walks. A line ends after its line break (\n; in
 * UTF-16LE the code unit 0x000A, bytes 0A 00 at an even offset); the last may have none. The
 * bytes of a line decode alone: no encoding read here carries a character across a line break.
 */
import { createReadStream } from "node:fs"
import { type Encoding, loadIconv } from "../encoding.ts"
import type { InputUnit } from "../source.ts"
import { traceRead } from "../read-trace.ts"

const NEWLINE = 10

/** Where the line starting at `from` ends (the index after its break), or -1 when `bytes` ends first. */
export const lineEnd = (bytes: Buffer, from: number, utf16: boolean): number => {
  if (!utf16) {
    const nl = bytes.indexOf(NEWLINE, from)
    return nl === -1 ? -1 : nl + 1
  }
  // `from` is even (a line starts at an even offset): a break is 0A 00 at an even index.
  for (let nl = bytes.indexOf(NEWLINE, from); nl !== -1; nl = bytes.indexOf(NEWLINE, nl + 1)) {
    if ((nl - from) % 2 === 0 && nl + 1 < bytes.length && bytes[nl + 1] === 0) return nl + 2
  }
  return -1
}

/**
 * Calls `onLine` with each physical line's offset and bytes (its break included), in order;
 * returns the file's size. `onLine` may keep a line only by copying it (the bytes are a view).
 */
export const scanLines = async (
  path: string,
  encoding: Encoding,
  onLine: (offset: number, line: Buffer) => void
): Promise<number> => {
  const utf16 = encoding === "utf-16le"
  traceRead("bytes", path)
  let offset = 0
  let partial: Buffer | undefined
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const bytes = partial === undefined ? chunk : Buffer.concat([partial, chunk])
    let from = 0
    for (let end = lineEnd(bytes, 0, utf16); end !== -1; end = lineEnd(bytes, from, utf16)) {
      onLine(offset, bytes.subarray(from, end))
      offset += end - from
      from = end
    }
    partial = from === bytes.length ? undefined : Buffer.from(bytes.subarray(from))
  }
  if (partial !== undefined) {
    onLine(offset, partial)
    offset += partial.length
  }
  return offset
}

/** A line's text; `first`: the file's first line, whose byte order mark the readers drop too. */
export const decodeLine = (line: Buffer, encoding: Encoding, first: boolean): string =>
  encoding === "utf-8" ? line.toString("utf8") : loadIconv().decode(line, encoding, { stripBOM: first })

/** Bytes that are blank in every ASCII-compatible encoding: space, tab, CR, LF, VT, FF. */
const blankByte = (b: number) => b === 32 || b === 9 || b === 13 || b === 10 || b === 11 || b === 12

/**
 * Whether a line holds nothing but white space (as `String.prototype.trim` sees it). Decided from
 * the bytes when its first byte other than ASCII white space is ASCII; decoded otherwise.
 */
export const isBlankLine = (line: Buffer, encoding: Encoding, first: boolean): boolean => {
  if (encoding !== "utf-16le") {
    let i = 0
    while (i < line.length && blankByte(line[i]!)) i++
    if (i === line.length) return true
    if (line[i]! < 0x80) return false
  }
  return decodeLine(line, encoding, first).trim() === ""
}

/**
 * The units of a cut, given the last one (from its start to the end of the file): a last unit
 * without a data row (blank lines at the end) joins the one before it; a file has at least one.
 */
export const closeUnits = (units: Array<InputUnit>, last: InputUnit): ReadonlyArray<InputUnit> => {
  const before = units[units.length - 1]
  if (last.rows === 0 && before !== undefined) units[units.length - 1] = { ...before, end: last.end }
  else units.push(last)
  return units
}
