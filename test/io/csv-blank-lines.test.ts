/**
 * Blank lines in a CSV of several columns carry no data: skipped, as in JSON Lines (a trailing blank line used to be a
 * reject — "Invalid Record Length: columns length is 2, got 1" — and made the run exit 1), with
 * the lines of the rows after them unchanged; a blank line inside quotes is text.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { csvSource } from "../../src/io/sources/csv.ts"
import { tempDir } from "../engine/run-helpers.ts"

const read = async (content: string) => {
  const path = join(tempDir(), "in.csv")
  writeFileSync(path, content)
  const items = Chunk.toArray(await Effect.runPromise(Stream.runCollect(csvSource(path).items())))
  return items.map((i) =>
    i._tag === "Record" ? `R${i.line}:${String(i.fields.id)}:${JSON.stringify(i.fields.text)}` : `X${i.line}`
  )
}

describe("CSV blank lines", () => {
  it("are skipped, trailing or between rows (LF and CRLF), lines kept", async () => {
    expect(await read("id,text\n1,a\n\n2,b\n\n\n")).toEqual(['R2:1:"a"', 'R4:2:"b"'])
    expect(await read("id,text\r\n1,a\r\n\r\n2,b\r\n\r\n")).toEqual(['R2:1:"a"', 'R4:2:"b"'])
  })

  it("in a one-column CSV a blank line is a row with an empty value, kept", async () => {
    const path = join(tempDir(), "in.csv")
    writeFileSync(path, "text\na\n\nb\n")
    const items = Chunk.toArray(await Effect.runPromise(Stream.runCollect(csvSource(path).items())))
    expect(items.map((i) => (i._tag === "Record" ? [i.line, i.fields.text] : i._tag))).toEqual([
      [2, "a"],
      [3, ""],
      [4, "b"]
    ])
  })

  it("inside quotes are text; after a broken quote the rows keep their lines", async () => {
    expect(await read('id,text\n1,"a\n\nb"\n\n2,c\n')).toEqual(['R2:1:"a\\n\\nb"', 'R6:2:"c"'])
    expect(await read('id,text\n1,"never closed\n\n2,c\n')).toEqual(["X2", 'R4:2:"c"'])
  })
})
