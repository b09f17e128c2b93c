/**
 * Line breaks csv-parse counts or reads otherwise than the file's: a CR counted as a line (a row
 * ending in CRLF in an LF file, a lone CR in a field), and a closing quote followed by another
 * line break than the file's (after which csv-parse read on inside quotes, swallowing the rows
 * after it). Every row keeps its own line, and ends in exactly one of records or rejects.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { csvSource } from "../../src/io/sources/csv.ts"
import { tempDir } from "../engine/run-helpers.ts"

const dir = tempDir()
const items = async (content: string) => {
  const path = join(dir, `in-${Math.random().toString(36).slice(2)}.csv`)
  writeFileSync(path, content)
  return Chunk.toArray(await Effect.runPromise(Stream.runCollect(csvSource(path).items())))
}
const summary = (all: Awaited<ReturnType<typeof items>>) =>
  all.map((i) => [i._tag, i.line, i._tag === "Record" ? i.fields.id : undefined])

describe("CSV line breaks", () => {
  it("a row after a CRLF-ended row of an LF file, or after a lone CR, is at its own line", async () => {
    expect(summary(await items("id,text\n1,a\r\n2,b\n3,c\rd\n4,e\n"))).toEqual([
      ["Record", 2, "1"],
      ["Record", 3, "2"],
      ["Record", 4, "3"],
      ["Record", 5, "4"]
    ])
    // A CR ending the file's last row is not yet a line to csv-parse when the row is read.
    expect(summary(await items("id,text\n1,a\n2,b\r"))).toEqual([
      ["Record", 2, "1"],
      ["Record", 3, "2"]
    ])
  })

  it("a closing quote followed by a CR in an LF file rejects that row only", async () => {
    expect(summary(await items('id,text\n1,"a"\r\n2,b\n3,"c"\n'))).toEqual([
      ["Reject", 2, undefined],
      ["Record", 3, "2"],
      ["Record", 4, "3"]
    ])
  })

  it("a closing quote followed by an LF alone in a CRLF file rejects that row only", async () => {
    expect(summary(await items('id,text\r\n1,"a"\n2,b\r\n3,"c"\r\n'))).toEqual([
      ["Reject", 2, undefined],
      ["Record", 3, "2"],
      ["Record", 4, "3"]
    ])
  })

  it("a quote starting a line that goes on with an unquoted field (after an LF alone in a CRLF file) rejects that row only", async () => {
    // csv-parse took the quote on line 4 for a stray one, then read on inside quotes to the end.
    expect(summary(await items('id,text\r\n1,a\r\n\n"\r\n"\r\n2,b\r\n'))).toEqual([
      ["Record", 2, "1"],
      ["Reject", 3, undefined],
      ["Reject", 5, undefined],
      ["Record", 6, "2"]
    ])
  })
})
