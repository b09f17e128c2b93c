/** The input's fingerprint (SHA-256 of its bytes) and a row estimate, in one streaming pass. */
import { createHash } from "node:crypto"
import { createReadStream } from "node:fs"

export const fingerprintFile = async (path: string): Promise<{ fingerprint: string; lines: number; bytes: number }> => {
  const hash = createHash("sha256")
  let lines = 0
  let bytes = 0
  let last = 10
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk)
    bytes += chunk.length
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
    last = chunk[chunk.length - 1]!
  }
  if (bytes > 0 && last !== 10) lines++
  return { fingerprint: hash.digest("hex"), lines, bytes }
}
