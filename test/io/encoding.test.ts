/**
 * Input encodings: Japanese corpora in Shift_JIS, CP932, EUC-JP, UTF-16LE and Latin-1 read as the
 * text they hold; a record with bytes invalid in its encoding is rejected with its line, the rest
 * of the file read — never sent with U+FFFD in place of the bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { csvSource } from "../../src/io/sources/csv.ts"
import type { Encoding } from "../../src/io/encoding.ts"
import { jsonlSource } from "../../src/io/sources/jsonl.ts"
import type { Source } from "../../src/io/source.ts"
import { tempDir } from "../engine/run-helpers.ts"

const iconv = createRequire(import.meta.url)("iconv-lite") as {
  encode: (text: string, encoding: string, options?: { addBOM?: boolean }) => Buffer
}
const items = (source: Source) => Effect.runPromise(Stream.runCollect(source.items()).pipe(Effect.map(Chunk.toArray)))

const texts = ["東京の天気は晴れです。", "お問い合わせありがとうございます。", "ｶﾀｶﾅ（半角）と①②、髙橋さん"]
const csvOf = (rows: ReadonlyArray<string>) => `id,text\r\n${rows.map((t, i) => `${i + 1},"${t}"`).join("\r\n")}\r\n`
const jsonlOf = (rows: ReadonlyArray<string>) =>
  rows.map((t, i) => JSON.stringify({ id: i + 1, text: t })).join("\n") + "\n"

describe("input encodings", () => {
  const dir = tempDir()
  const cases: ReadonlyArray<[Encoding, ReadonlyArray<string>]> = [
    ["shift_jis", texts.slice(0, 2)], // Shift_JIS proper has no ① or 髙: CP932 does
    ["cp932", texts],
    ["euc-jp", texts.slice(0, 2)],
    ["utf-16le", texts],
    ["latin1", ["Café crème à la carte", "Ærøskøbing, naïve façade"]]
  ]
  for (const [encoding, rows] of cases) {
    it(`${encoding}: CSV and JSONL decode to the original text`, async () => {
      const csv = join(dir, `${encoding}.csv`)
      writeFileSync(csv, iconv.encode(csvOf(rows), encoding, { addBOM: encoding === "utf-16le" }))
      const jsonl = join(dir, `${encoding}.jsonl`)
      writeFileSync(jsonl, iconv.encode(jsonlOf(rows), encoding))
      for (const source of [csvSource(csv, encoding), jsonlSource(jsonl, encoding)]) {
        const all = await items(source)
        expect(all.map((i) => (i._tag === "Record" ? i.fields.text : i.reason))).toEqual(rows)
      }
      expect(await Effect.runPromise(csvSource(csv, encoding).columns)).toEqual(["id", "text"])
    })
  }

  it("UTF-8 (the default): a row with invalid bytes is rejected with its line; the rows around it are read", async () => {
    const path = join(dir, "bad-utf8.csv")
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from('id,text\n1,"東京"\n2,"multi\nline"\n3,"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"\n4,"ok"\n')
      ])
    )
    const all = await items(csvSource(path))
    expect(all.map((i) => [i._tag, i.line, i._tag === "Record" ? i.fields.text : i.reason])).toEqual([
      ["Record", 2, "東京"],
      ["Record", 3, "multi\nline"],
      ["Reject", 5, "invalid UTF-8 on line 5 (set input.encoding if the file is in another encoding)"],
      ["Record", 6, "ok"]
    ])
    const jsonl = join(dir, "bad-utf8.jsonl")
    writeFileSync(
      jsonl,
      Buffer.concat([
        Buffer.from('{"text":"a"}\n{"text":"'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}\n{"text":"b"}\n')
      ])
    )
    const lines = await items(jsonlSource(jsonl))
    expect(lines.map((i) => [i._tag, i.line])).toEqual([
      ["Record", 1],
      ["Reject", 2],
      ["Record", 3]
    ])
  })

  it("Shift_JIS: a row with a byte sequence Shift_JIS does not define is rejected with its line", async () => {
    const path = join(dir, "bad-sjis.csv")
    const good = iconv.encode(csvOf(texts.slice(0, 2)), "shift_jis")
    writeFileSync(
      path,
      Buffer.concat([good, Buffer.from('3,"'), Buffer.from([0x82, 0xff, 0x82, 0xa0]), Buffer.from('"\r\n')])
    )
    const all = await items(csvSource(path, "shift_jis"))
    expect(all.map((i) => [i._tag, i.line])).toEqual([
      ["Record", 2],
      ["Record", 3],
      ["Reject", 4]
    ])
    expect(all[2]!._tag === "Reject" && all[2]!.reason).toBe("bytes that are not valid shift_jis on line 4")
  })
})
