/**
 * One bad quote costs one row. Generated CSV files with multi-line quoted fields (LF and CRLF),
 * escaped quotes and commas, some rows corrupted (a closing quote dropped, a stray character after
 * one): every good row is a record with its own text and line; a corrupted row is a reject at the
 * line its quote opened; the other lines of a corrupted multi-line row are read as what they look
 * like (rejects when their field count is wrong) — never a good row lost or merged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { csvSource } from "../../src/io/sources/csv.ts"
import type { SourceItem } from "../../src/io/source.ts"
import { tempDir } from "../engine/run-helpers.ts"

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const words = ["calm", "note", "東京", "garden", "a, b", 'say ""hi""', "spring", "🌸"]

describe("CSV resynchronisation after a bad quote", () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`seed ${seed}: every row in exactly one place, at its own line`, async () => {
      const random = prng(seed)
      const pick = () => words[Math.floor(random() * words.length)]!
      const eol = random() < 0.5 ? "\n" : "\r\n"
      let line = 2
      let text = `id,text,n${eol}`
      const expected: Array<{ id: string; line: number; lines: number; text?: string }> = []
      for (let i = 0; i < 60; i++) {
        const id = `r${i}`
        const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `${pick()} ${pick()}`)
        const value = parts.join(random() < 0.5 ? "\n" : "\r\n") // a multi-line field
        const quoted = `"${value}"`
        const corrupt = i > 0 && random() < 0.15
        const row = corrupt
          ? random() < 0.5
            ? `${id},${quoted.slice(0, -1)},${i}`
            : `${id},${quoted}x,${i}`
          : `${id},${quoted},${i}`
        const lines = 1 + (value.match(/\n/g)?.length ?? 0)
        expected.push(corrupt ? { id, line, lines } : { id, line, lines, text: value.replaceAll('""', '"') })
        text += row + eol
        line += lines
      }
      const path = join(tempDir(), "corrupt.csv")
      writeFileSync(path, text)
      const items = await Effect.runPromise(Stream.runCollect(csvSource(path).items()).pipe(Effect.map(Chunk.toArray)))
      const claimed = new Set<SourceItem>()
      for (const e of expected) {
        if (e.text !== undefined) {
          const r = items.filter((x) => x._tag === "Record" && x.fields.id === e.id)
          expect(r.map((x) => [x.line, x._tag === "Record" && x.fields.text])).toEqual([[e.line, e.text]])
          r.forEach((x) => claimed.add(x))
        } else {
          expect(items.some((x) => x._tag === "Record" && x.fields.id === e.id)).toBe(false)
          const r = items.filter((x) => x._tag === "Reject" && x.line === e.line)
          expect(r.length).toBe(1)
          r.forEach((x) => claimed.add(x))
        }
      }
      // Anything else comes from the other lines of a corrupted row.
      const continuation = (l: number) =>
        expected.some((e) => e.text === undefined && l > e.line && l < e.line + e.lines)
      for (const x of items) if (!claimed.has(x)) expect(continuation(x.line)).toBe(true)
      expect(items.map((i) => i.ordinal)).toEqual(items.map((_, k) => k))
    })
  }

  it("a quote never closed: only its row is lost, with a reason naming the line", async () => {
    const path = join(tempDir(), "eof.csv")
    writeFileSync(path, 'id,text\n1,"fine"\n2,"never closed\n3,three\n4,four\n')
    const items = await Effect.runPromise(Stream.runCollect(csvSource(path).items()).pipe(Effect.map(Chunk.toArray)))
    expect(items.map((i) => [i._tag, i.line, i._tag === "Record" ? i.fields.text : i.reason])).toEqual([
      ["Record", 2, "fine"],
      [
        "Reject",
        3,
        "the quote opened on line 3 is never closed (the file ends inside it); the row is rejected and reading resumes on line 4"
      ],
      ["Record", 4, "three"],
      ["Record", 5, "four"]
    ])
  })

  const read = async (name: string, content: string) => {
    const path = join(tempDir(), name)
    writeFileSync(path, content)
    return Effect.runPromise(Stream.runCollect(csvSource(path).items()).pipe(Effect.map(Chunk.toArray)))
  }
  const shown = (items: ReadonlyArray<SourceItem>) =>
    items.map((i) => (i._tag === "Record" ? ["Record", i.line, i.fields.id] : ["Reject", i.line, i.reason, i.raw]))

  it("a quote that runs on to a later line and breaks there: the reason is said of the line where it opened, naming where it broke", async () => {
    // Line 6's quote is not closed there ("" is an escaped quote): the field runs on, and breaks on line 8.
    const items = await read("runs-on.csv", 'id,text\ng1,a\ng2,b\ng3,c\ng4,d\ng5,"a""\ng6,ok\ng7,"more"\ng8,ok\n')
    expect(shown(items)).toEqual([
      ["Record", 2, "g1"],
      ["Record", 3, "g2"],
      ["Record", 4, "g3"],
      ["Record", 5, "g4"],
      [
        "Reject",
        6,
        'the quote opened on line 6 is not closed properly (it runs on to line 8, where a closing quote is followed by "m"); the row is rejected and reading resumes on line 7',
        'g5,"a""'
      ],
      ["Record", 7, "g6"],
      ["Record", 8, "g7"],
      ["Record", 9, "g8"]
    ])
  })

  for (const eol of ["\n", "\r\n"]) {
    it(`a quote inside an unquoted field (${JSON.stringify(eol)}): the reject holds the row's whole line(s), at the line it starts; the next rows keep their lines`, async () => {
      const long = "x".repeat(3000)
      const lines = [
        "id,text",
        'g1,unquoted "x" here',
        "g2,ok",
        'g3,"multi',
        'line",bad "q" tail',
        "g4,ok",
        `g5,${long} "y" ${long}`,
        "g6,ok"
      ]
      const items = await read("stray.csv", lines.join(eol) + eol)
      expect(shown(items)).toEqual([
        [
          "Reject",
          2,
          'a quote inside an unquoted field on line 2 (after "unquoted "): quote the whole field and double the quotes in it; the row is rejected',
          'g1,unquoted "x" here'
        ],
        ["Record", 3, "g2"],
        [
          "Reject",
          4,
          'a quote inside an unquoted field on line 5 (after "bad "): quote the whole field and double the quotes in it; the row is rejected',
          `g3,"multi${eol}line",bad "q" tail`
        ],
        ["Record", 6, "g4"],
        [
          "Reject",
          7,
          `a quote inside an unquoted field on line 7 (after "…${"x".repeat(39)} "): quote the whole field and double the quotes in it; the row is rejected`,
          `g5,${long} "y" ${long}`.slice(0, 2000)
        ],
        ["Record", 8, "g6"]
      ])
    })
  }
})
