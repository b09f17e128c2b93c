/**
 * CSV resynchronisation under other kinds of damage than test/io/csv-resync.test.ts: a quote
 * inside an unquoted field, text after a closing quote, an unclosed quote (also as the last row,
 * with or without a final line break), too many and too few fields; LF or CRLF files with quoted
 * LF and CRLF in good rows. Every data row ends in exactly one of records or rejects, at its line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { csvSource } from "../../src/io/sources/csv.ts"
import { tempDir } from "../engine/run-helpers.ts"

const items = async (path: string) => Chunk.toArray(await Effect.runPromise(Stream.runCollect(csvSource(path).items())))
const file = (content: string) => {
  const path = join(tempDir(), "in.csv")
  writeFileSync(path, content)
  return path
}

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe("CSV: randomized corruption (fixed seeds)", () => {
  const words = ["hello", "日本語の文", "a, b", 'say "hi"', "line\nbreak", "crlf\r\nbreak", "", "café ☕", "tab\there"]
  const quote = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)
  const bad = (id: number, r: () => number) => {
    const kinds = [`${id},"never closed ${id}`, `${id},bro"ken ${id}`, `${id},"closed"junk`, `${id},a,b,c,d`, `${id}`]
    return kinds[Math.floor(r() * kinds.length)]!
  }

  for (const seed of [1, 2, 3, 42, 1234]) {
    it(`seed ${seed}: every data row ends in exactly one of records or rejects, at its line`, async () => {
      const r = prng(seed)
      const eol = r() < 0.5 ? "\n" : "\r\n"
      let line = 2
      const expected = new Map<number, { id: string; text: string } | "reject">()
      const rows: Array<string> = []
      for (let id = 1; id <= 400; id++) {
        if (r() < 0.12) {
          rows.push(bad(id, r))
          expected.set(line, "reject")
          line += 1
        } else {
          const text = Array.from(
            { length: 1 + Math.floor(r() * 3) },
            () => words[Math.floor(r() * words.length)]!
          ).join(" ")
          rows.push(`${id},${quote(text)},${Math.floor(r() * 100)}`)
          expected.set(line, { id: String(id), text })
          line += 1 + (text.match(/\n/g)?.length ?? 0)
        }
      }
      const path = file(`id,text,n${eol}${rows.join(eol)}${r() < 0.5 ? eol : ""}`)
      const all = await items(path)
      const seen = new Map<number, { id: string; text: string } | "reject">()
      for (const i of all) {
        expect(seen.has(i.line), `line ${i.line} twice`).toBe(false)
        seen.set(i.line, i._tag === "Reject" ? "reject" : { id: String(i.fields.id), text: String(i.fields.text) })
      }
      expect(seen).toEqual(expected)
      expect(all.map((i) => i.ordinal)).toEqual(all.map((_, k) => k))
    })
  }
})
