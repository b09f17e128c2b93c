/** A text file's physical lines for the cut (sources/lines.ts): offsets exact across read chunks, per encoding. */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { Encoding } from "../../../src/io/encoding.ts"
import { isBlankLine, scanLines } from "../../../src/io/sources/lines.ts"
import { tempDir } from "../../engine/run-helpers.ts"

const iconv = createRequire(import.meta.url)("iconv-lite") as {
  encode: (text: string, encoding: string) => Buffer
}
const dir = tempDir()

describe("scanLines", () => {
  // Over 1 MiB (the read's chunk), lines of uneven lengths: some cross a chunk boundary.
  const lines = Array.from({ length: 40_000 }, (_, i) => `${i}: ${"日本語 text, ".repeat(i % 7)}\n`)
  for (const encoding of ["utf-8", "shift_jis", "utf-16le"] as const satisfies ReadonlyArray<Encoding>) {
    it(`${encoding}: each line's offset and bytes, the last one without a line break too`, async () => {
      const texts = [...lines, "last line, no break"]
      const parts = texts.map((t) => (encoding === "utf-8" ? Buffer.from(t) : iconv.encode(t, encoding)))
      const bytes = Buffer.concat(parts)
      expect(bytes.length).toBeGreaterThan(1 << 20)
      const path = join(dir, `lines-${encoding}.txt`)
      writeFileSync(path, bytes)
      const seen: Array<[number, number]> = []
      const size = await scanLines(path, encoding, (offset, line) => void seen.push([offset, line.length]))
      let offset = 0
      const expected = parts.map((p): [number, number] => {
        const at = offset
        offset += p.length
        return [at, p.length]
      })
      expect(seen).toEqual(expected)
      expect(size).toBe(bytes.length)
    })
  }

  it("UTF-16LE: a byte 0A that is half of another character is not a line break", async () => {
    // U+0A0A (bytes 0A 0A) and U+010A (bytes 0A 01) hold 0A bytes; only U+000A ends a line.
    const bytes = iconv.encode("a\u0a0a\u010ab\nc\n", "utf-16le")
    const path = join(dir, "utf16-0a.txt")
    writeFileSync(path, bytes)
    const seen: Array<number> = []
    await scanLines(path, "utf-16le", (offset) => void seen.push(offset))
    expect(seen).toEqual([0, 10])
  })
})

describe("isBlankLine", () => {
  it("white space as trim sees it: ASCII, a no-break space, an ideographic space, a BOM", () => {
    const blank = (text: string, encoding: Encoding = "utf-8") =>
      isBlankLine(encoding === "utf-8" ? Buffer.from(text) : iconv.encode(text, encoding), encoding, true)
    expect(blank(" \t\r\n")).toBe(true)
    expect(blank("\u00a0\u3000\n")).toBe(true)
    expect(blank("\uFEFF\n")).toBe(true)
    expect(blank("\u3000\n", "shift_jis")).toBe(true)
    expect(blank("  x\n")).toBe(false)
    expect(blank("\u3000日本\n", "shift_jis")).toBe(false)
    expect(blank(" \n", "utf-16le")).toBe(true)
    expect(blank(" {}\n", "utf-16le")).toBe(false)
  })
})
