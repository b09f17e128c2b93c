/**
 * The input's fingerprint (SHA-256 of its bytes) and a row estimate, in one streaming pass.
 * For CSV (`quoted`), line breaks inside quoted fields are not counted: a record with a multi-line
 * field is one row. A doubled quote (`""`) toggles twice, so RFC 4180 escaping needs no special
 * case. The count is an estimate only where a row's quoting is broken; a quote still open at the
 * end of the file falls back to counting lines. For JSON Lines (`skipBlank`), blank lines (only
 * spaces, tabs, CRs) are not counted: the source skips them.
 */
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"
import { traceRead } from "./read-trace.ts"

const QUOTE = 34
const NEWLINE = 10

/** Blank-line bytes other than the newline: space, tab, CR, VT, FF. */
const blank = (b: number) => b === 32 || b === 9 || b === 13 || b === 11 || b === 12

export const fingerprintFile = async (
  path: string,
  /** `skipBlank` (JSON Lines, which skips blank lines): count only lines with something on them. */
  options: { readonly quoted?: boolean; readonly skipBlank?: boolean } = {}
): Promise<{ fingerprint: string; lines: number; bytes: number }> => {
  const hash = createHash("sha256")
  let lines = 0
  let nonBlank = 0
  // Whether the current line has had a byte other than blank ones.
  let content = false
  let bytes = 0
  let last = NEWLINE
  let inQuotes = false
  let physical = 0
  traceRead("bytes", path)
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk)
    bytes += chunk.length
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) physical++
    if (options.quoted) {
      // Jump from one quote or newline to the next with indexOf (native), not byte by byte.
      let i = 0
      let q = chunk.indexOf(QUOTE)
      let n = chunk.indexOf(NEWLINE)
      while (q !== -1 || n !== -1) {
        if (n !== -1 && (q === -1 || n < q)) {
          if (!inQuotes) lines++
          i = n + 1
          n = chunk.indexOf(NEWLINE, i)
        } else {
          inQuotes = !inQuotes
          i = q + 1
          q = chunk.indexOf(QUOTE, i)
        }
      }
    }
    if (options.skipBlank) {
      // A line's first bytes decide it (a JSON line starts with "{"): then on to the next newline.
      let i = 0
      while (i < chunk.length) {
        if (!content) {
          while (i < chunk.length && blank(chunk[i]!)) i++
          if (i === chunk.length) break
          if (chunk[i] === NEWLINE) {
            i++
            continue
          }
          content = true
        }
        const n = chunk.indexOf(NEWLINE, i)
        if (n === -1) break
        nonBlank++
        content = false
        i = n + 1
      }
    }
    last = chunk[chunk.length - 1]!
  }
  if (options.skipBlank) return { fingerprint: hash.digest("hex"), lines: nonBlank + (content ? 1 : 0), bytes }
  // A quote left open to the end (a broken row) would make every later line look quoted: the
  // physical line count is the better estimate then.
  if (!options.quoted || inQuotes) lines = physical
  if (bytes > 0 && last !== NEWLINE) lines++
  return { fingerprint: hash.digest("hex"), lines, bytes }
}
