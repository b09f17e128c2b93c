/**
 * The input's fingerprint (SHA-256 of its bytes) and a row estimate, in one streaming pass.
 * For CSV (`quoted`), line breaks inside quoted fields are not counted: a record with a multi-line
 * field is one row. A doubled quote (`""`) toggles twice, so RFC 4180 escaping needs no special
 * case. The count is an estimate only where a row's quoting is broken; a quote still open at the
 * end of the file falls back to counting lines.
 */
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"

const QUOTE = 34
const NEWLINE = 10

export const fingerprintFile = async (path: string, options: { readonly quoted?: boolean } = {}): Promise<{ fingerprint: string; lines: number; bytes: number }> => {
  const hash = createHash("sha256")
  let lines = 0
  let bytes = 0
  let last = NEWLINE
  let inQuotes = false
  let physical = 0
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
    last = chunk[chunk.length - 1]!
  }
  // A quote left open to the end (a broken row) would make every later line look quoted: the
  // physical line count is the better estimate then.
  if (!options.quoted || inQuotes) lines = physical
  if (bytes > 0 && last !== NEWLINE) lines++
  return { fingerprint: hash.digest("hex"), lines, bytes }
}
