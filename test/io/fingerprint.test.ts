/** The reading pass's row estimate: CSV rows with line breaks inside quotes count once. */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fingerprintFile } from "../../src/io/fingerprint.ts"
import { tempDir } from "../engine/run-helpers.ts"

describe("fingerprint and row estimate", () => {
  it("CSV: 20,000 records with three-line quoted fields and escaped quotes are estimated as 20,000 rows, not 60,000 lines", async () => {
    const path = join(tempDir(), "multi.csv")
    const rows = Array.from(
      { length: 20_000 },
      (_, i) => `${i},"line one of ${i}\r\nline two with ""quotes""\nline three"`
    )
    writeFileSync(path, `id,text\n${rows.join("\n")}\n`)
    const quoted = await fingerprintFile(path, { quoted: true })
    expect(quoted.lines - 1).toBe(20_000) // minus the header
    const physical = await fingerprintFile(path)
    expect(physical.lines - 1).toBe(60_000)
    expect(quoted.fingerprint).toBe(physical.fingerprint)
  })

  it("a last row without a final newline still counts", async () => {
    const path = join(tempDir(), "last.csv")
    writeFileSync(path, 'id,text\n1,"a\nb"\n2,c')
    expect((await fingerprintFile(path, { quoted: true })).lines).toBe(3)
  })
})

describe("row estimate with a broken quote", () => {
  it("a quote left open to the end falls back to counting lines (not ~2 records for 20,000)", async () => {
    const path = join(tempDir(), "broken.csv")
    const rows = Array.from({ length: 20_000 }, (_, i) => (i === 2 ? `${i},"never closed` : `${i},"row ${i}"`))
    writeFileSync(path, `id,text\n${rows.join("\n")}\n`)
    expect((await fingerprintFile(path, { quoted: true })).lines - 1).toBe(20_000)
  })
})

describe("row estimate of JSON Lines (skipBlank)", () => {
  it("blank lines — empty, spaces and tabs, CRLF — are not counted; a last line without a newline is", async () => {
    const path = join(tempDir(), "blank.jsonl")
    writeFileSync(path, '\n{"a":1}\n\n  \t\n{"a":2}\r\n\r\n {"a":3}\n{"a":4}')
    const counted = await fingerprintFile(path, { skipBlank: true })
    expect(counted.lines).toBe(4)
    expect(counted.fingerprint).toBe((await fingerprintFile(path)).fingerprint)
  })

  it("counts right across the 1 MiB chunks the file is read in", async () => {
    const path = join(tempDir(), "big.jsonl")
    // 30,000 records (~1.5 MiB) with a blank line after every third: chunk edges fall anywhere.
    const lines = Array.from(
      { length: 30_000 },
      (_, i) => `{"id":"r${i}","text":"${"x".repeat(i % 50)}"}${i % 3 === 2 ? "\n  " : ""}`
    )
    writeFileSync(path, `${lines.join("\n")}\n`)
    expect((await fingerprintFile(path, { skipBlank: true })).lines).toBe(30_000)
  })
})
