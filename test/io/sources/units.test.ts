/**
 * Units of an input (sources/index.ts `cutUnits`, each format's `items(unit)`): the units cover the
 * file end to end, and their items read one by one and put together are exactly the full read's —
 * same ordinals, lines, fields, rejects and reasons — over random JSON Lines and CSV files (blank
 * lines, bad rows, quoted line breaks, CRLF, a BOM, UTF-8 with invalid bytes, Shift_JIS, UTF-16LE)
 * and a Parquet file of several row groups.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import fc from "fast-check"
import { parquetWriteBuffer } from "hyparquet-writer"
import { statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { Encoding } from "../../../src/io/encoding.ts"
import type { InputUnit, Source, SourceItem } from "../../../src/io/source.ts"
import { cutUnits, type Format, openSource } from "../../../src/io/sources/index.ts"
import { tempDir } from "../../engine/run-helpers.ts"

const iconv = createRequire(import.meta.url)("iconv-lite") as {
  encode: (text: string, encoding: string, options?: { addBOM?: boolean }) => Buffer
}

const collect = (stream: Stream.Stream<SourceItem, unknown>) =>
  Effect.runPromise(Stream.runCollect(stream).pipe(Effect.map(Chunk.toArray)))

const dir = tempDir()
let files = 0

/** The file, its units for `target`, the full read and the units' reads put together. */
const readBothWays = async (bytes: Buffer, format: Format, encoding: Encoding, target: number) => {
  const path = join(dir, `in-${files++}.${format}`)
  writeFileSync(path, bytes)
  const source: Source = openSource(path, format, { encoding })
  const units = await Effect.runPromise(cutUnits(path, format, target, { encoding }))
  const whole = await collect(source.items())
  const parts: Array<Array<SourceItem>> = []
  for (const unit of units) parts.push(await collect(source.items(unit)))
  return { path, units, whole, parts }
}

/** What holds for every cut: the units tile the input and their items are the full read's. */
const expectSameAsWhole = (r: Awaited<ReturnType<typeof readBothWays>>, end: number): ReadonlyArray<InputUnit> => {
  expect(r.parts.flat()).toEqual(r.whole)
  expect(r.units.length).toBeGreaterThan(0)
  expect(r.units[0]!.start).toBe(0)
  expect(r.units[r.units.length - 1]!.end).toBe(end)
  r.units.forEach((unit, i) => {
    if (i > 0) expect(unit.start).toBe(r.units[i - 1]!.end)
    expect(r.parts[i]!.length).toBe(unit.rows)
    if (r.parts[i]!.length > 0) expect(r.parts[i]![0]!.ordinal).toBe(unit.firstOrdinal)
  })
  return r.units
}

// Texts every tested encoding can hold (Shift_JIS has no emoji), with quotes, commas, tabs and a
// line separator (U+2028, not a line break for either format).
const word = fc.constantFrom("hello", "日本語の文", "a, b", 'say "hi"', "tab\there", "café", "", "\u2028", "ｶﾀｶﾅ", "x")
const text = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join(" "))
/** Any mix of the characters that matter to a parser: quotes, separators, line breaks, a lone CR. */
const noise = fc
  .array(fc.constantFrom('"', ",", "\n", "\r", "\r\n", "a", " ", "{", "}", "é"), { maxLength: 8 })
  .map((cs) => cs.join(""))
const encodingArb = fc.constantFrom<Encoding>("utf-8", "utf-8", "shift_jis", "utf-16le")
const encode = (content: string, encoding: Encoding) =>
  encoding === "utf-8" ? Buffer.from(content, "utf8") : iconv.encode(content, encoding)
/** Bytes that are not UTF-8 (a Latin-1 é), put in a line of a UTF-8 file: a reject. */
const INVALID = "\u0000INVALID\u0000"
const toBytes = (content: string, encoding: Encoding) =>
  encoding === "utf-8"
    ? Buffer.concat(
        content
          .split(INVALID)
          .flatMap((part, i) => (i === 0 ? [encode(part, encoding)] : [Buffer.from([0xe9]), encode(part, encoding)]))
      )
    : encode(content.replaceAll(INVALID, "?"), encoding)

describe("JSON Lines units", () => {
  const line = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.nat(999), text).map(([id, t]) => JSON.stringify({ id, t })) },
    { weight: 2, arbitrary: fc.constantFrom("", "  ", "\t", "\r", " \u3000 ") },
    { weight: 2, arbitrary: fc.constantFrom("{bad json", "[1,2]", '"text"', "null", "42") },
    { weight: 1, arbitrary: text.map((t) => `{"t":"${INVALID}${t.replace(/["\\]/g, "")}"}`) },
    { weight: 1, arbitrary: noise }
  )
  const file = fc.record({
    lines: fc.array(line, { maxLength: 40 }),
    eol: fc.constantFrom("\n", "\r\n"),
    finalEol: fc.boolean(),
    bom: fc.boolean(),
    encoding: encodingArb,
    target: fc.integer({ min: 1, max: 6 })
  })

  it("read unit by unit, the items are the full read's", async () => {
    await fc.assert(
      fc.asyncProperty(file, async (f) => {
        const content = `${f.bom ? "\uFEFF" : ""}${f.lines.join(f.eol)}${f.finalEol ? f.eol : ""}`
        const bytes = toBytes(content, f.encoding)
        const r = await readBothWays(bytes, "jsonl", f.encoding, f.target)
        expectSameAsWhole(r, bytes.length)
      }),
      { numRuns: Number(process.env.RUNS ?? 150) }
    )
  }, 120_000)

  it("cuts after `target` data rows: blank lines are not counted", async () => {
    const content = ['{"i":1}', "", '{"i":2}', "   ", '{"i":3}', "bad", '{"i":5}', ""].join("\n")
    const r = await readBothWays(Buffer.from(content), "jsonl", "utf-8", 2)
    expect(r.units.map((u) => [u.firstOrdinal, u.firstLine, u.rows])).toEqual([
      [0, 1, 2],
      [2, 4, 2],
      [4, 7, 1]
    ])
    expectSameAsWhole(r, content.length)
  })
})

describe("CSV units", () => {
  const quote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)
  const good = (columns: number) =>
    fc
      .tuple(
        fc.nat(999),
        fc.array(fc.oneof(text, fc.constantFrom("two\nlines", "crlf\r\ninside", "a\n\nb")), {
          minLength: columns - 1,
          maxLength: columns - 1
        })
      )
      .map(([id, rest]) => (columns === 1 ? quote(rest[0] ?? String(id)) : [String(id), ...rest.map(quote)].join(",")))
  const bad = fc.constantFrom(
    '7,"never closed',
    '8,bro"ken',
    '9,"closed"junk',
    "10,a,b,c,d",
    "11",
    '12,"opens\nand runs on',
    `13,${INVALID}bytes`
  )
  const row = (columns: number) =>
    fc.oneof(
      { weight: 6, arbitrary: good(columns) },
      { weight: 2, arbitrary: fc.constant("") },
      { weight: 2, arbitrary: bad },
      { weight: 2, arbitrary: noise }
    )
  const file = fc.integer({ min: 1, max: 3 }).chain((columns) =>
    fc.record({
      header: fc.constant(["id", "text", "n"].slice(0, columns).join(",")),
      rows: fc.array(row(columns), { maxLength: 30 }),
      eol: fc.constantFrom("\n", "\r\n"),
      // Some files end a few rows with the other line break.
      otherEols: fc.array(fc.nat(29), { maxLength: 3 }),
      finalEol: fc.boolean(),
      bom: fc.boolean(),
      encoding: encodingArb,
      target: fc.integer({ min: 1, max: 6 })
    })
  )

  it("read unit by unit, the items are the full read's", async () => {
    await fc.assert(
      fc.asyncProperty(file, async (f) => {
        const other = f.eol === "\n" ? "\r\n" : "\n"
        const body = f.rows.map((r, i) => `${f.otherEols.includes(i) ? other : f.eol}${r}`)
        const content = `${f.bom ? "\uFEFF" : ""}${f.header}${body.join("")}${f.finalEol ? f.eol : ""}`
        const bytes = toBytes(content, f.encoding)
        const r = await readBothWays(bytes, "csv", f.encoding, f.target)
        expectSameAsWhole(r, bytes.length)
      }),
      { numRuns: Number(process.env.RUNS ?? 150) }
    )
  }, 180_000)

  it("a unit past the first has the file's lines and ordinals, and reasons naming the file's lines", async () => {
    const content = 'id,text\n1,"two\nlines"\n2,ok\n3,"never closed\n4,fine\n'
    const r = await readBothWays(Buffer.from(content), "csv", "utf-8", 2)
    expect(r.units.map((u) => [u.firstOrdinal, u.firstLine, u.rows])).toEqual([
      [0, 1, 2],
      [2, 5, 2]
    ])
    expect(r.parts[1]!.map((i) => [i._tag, i.ordinal, i.line])).toEqual([
      ["Reject", 2, 5],
      ["Record", 3, 6]
    ])
    expect(r.parts[1]![0]!._tag === "Reject" && r.parts[1]![0]!.reason).toMatch(/line 5 .*resumes on line 6/)
    expectSameAsWhole(r, content.length)
  })

  it("a row csv-parse may read otherwise than the cut's scanner (a CR in an LF file) is counted by reading it", async () => {
    // "\r\n" in an LF file is a blank row to csv-parse (skipped under two columns): no ordinal.
    const content = "id,text\n1,a\n\r\n2,b\r\n3,c\n"
    const r = await readBothWays(Buffer.from(content), "csv", "utf-8", 1)
    expect(r.units.map((u) => [u.firstOrdinal, u.firstLine, u.rows])).toEqual([
      [0, 1, 1],
      [1, 3, 1],
      [2, 5, 1]
    ])
    expectSameAsWhole(r, content.length)
  })

  it("a header longer than one read of it (64 KiB), in UTF-16LE: units past the first read it whole", async () => {
    const columns = Array.from({ length: 5000 }, (_, i) => `column_${i}`)
    const rows = Array.from({ length: 12 }, (_, r) =>
      columns.map((_, c) => (c === 0 ? `"r${r}\n日本"` : `${c}`)).join(",")
    )
    const bytes = iconv.encode(`${columns.join(",")}\r\n${rows.join("\r\n")}\r\n`, "utf-16le")
    const r = await readBothWays(bytes, "csv", "utf-16le", 5)
    expect(r.units).toHaveLength(3)
    expect(r.parts[2]![0]!._tag === "Record" && r.parts[2]![0]!.fields.column_4999).toBe("4999")
    expectSameAsWhole(r, bytes.length)
  })

  it("a file whose header leaves a quote open is one unit", async () => {
    const content = 'id,"te\nxt"\n1,a\n2,b\n'
    const r = await readBothWays(Buffer.from(content), "csv", "utf-8", 1)
    expect(r.units).toHaveLength(1)
    expectSameAsWhole(r, content.length)
  })
})

describe("Parquet units", () => {
  it("are whole row groups; read unit by unit, the items are the full read's", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 100 }),
        async (groups, target) => {
          const n = groups.reduce((a, b) => a + b, 0)
          const buffer = parquetWriteBuffer({
            columnData: [
              { name: "id", data: Int32Array.from({ length: n }, (_, i) => i), type: "INT32" },
              { name: "text", data: Array.from({ length: n }, (_, i) => `row ${i}`), type: "STRING" }
            ],
            rowGroupSize: groups
          })
          const r = await readBothWays(Buffer.from(buffer), "parquet", "utf-8", target)
          const units = expectSameAsWhole(r, n)
          expect(r.whole).toHaveLength(n)
          // Each unit ends where a row group ends.
          const ends = new Set(groups.map((_, i) => groups.slice(0, i + 1).reduce((a, b) => a + b, 0)))
          for (const u of units) expect(ends.has(u.end)).toBe(true)
          expect(statSync(r.path).size).toBeGreaterThan(0)
        }
      ),
      { numRuns: 40 }
    )
  }, 60_000)
})
