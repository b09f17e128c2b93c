/** Sources: CSV and JSONL edge cases, Parquet as DuckDB writes it. */
import { DuckDBInstance } from "@duckdb/node-api"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { csvSource } from "../../src/io/sources/csv.ts"
import { jsonlSource } from "../../src/io/sources/jsonl.ts"
import { parquetSource } from "../../src/io/sources/parquet.ts"
import type { Source, SourceItem } from "../../src/io/source.ts"

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-src-"))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const items = (source: Source) => Effect.runPromise(Stream.runCollect(source.items()).pipe(Effect.map(Chunk.toArray)))
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}
const records = (all: ReadonlyArray<SourceItem>) => all.filter((i) => i._tag === "Record")
const rejects = (all: ReadonlyArray<SourceItem>) => all.filter((i) => i._tag === "Reject")

describe("CSV source", () => {
  it("reads BOM, CRLF and quoted newlines, with start lines and stable ordinals", async () => {
    const path = file("a.csv", '\uFEFFid,text\r\n1,hello\r\n2,"two\r\nlines, ""quoted"""\r\n3,last\r\n')
    const all = await items(csvSource(path))
    expect(all.map((i) => i._tag)).toEqual(["Record", "Record", "Record"])
    expect(all.map((i) => i.ordinal)).toEqual([0, 1, 2])
    expect(all.map((i) => i.line)).toEqual([2, 3, 5])
    const r = records(all)
    expect(r[0]!.fields).toEqual({ id: "1", text: "hello" })
    expect(r[1]!.fields.text).toBe('two\r\nlines, "quoted"')
    expect(await Effect.runPromise(csvSource(path).columns)).toEqual(["id", "text"])
  })

  it("rejects malformed rows with their line and reason, and keeps reading", async () => {
    const path = file("b.csv", 'id,text\n1,ok\n2,"bad "quote" here"\n3,too,many\n4,fine\n5\n6,end\n')
    const all = await items(csvSource(path))
    expect(records(all).map((r) => r.fields.id)).toEqual(["1", "4", "6"])
    const bad = rejects(all)
    expect(bad.map((r) => r.line)).toEqual([3, 4, 6])
    for (const r of bad) expect(r.reason.length).toBeGreaterThan(5)
    expect(bad[1]!.raw).toBe("3,too,many")
    // Every row, read or rejected, has its own ordinal in file order.
    expect(all.map((i) => i.ordinal)).toEqual([0, 1, 2, 3, 4, 5])
  })
})

describe("JSONL source", () => {
  it("reads objects, skips blank lines, rejects bad and non-object lines with their line", async () => {
    const path = file("a.jsonl", '{"id":1,"t":"a"}\r\n\n{bad json}\n[1,2]\n"text"\n{"id":2,"t":"日本"}\n')
    const all = await items(jsonlSource(path))
    expect(records(all).map((r) => [r.line, r.fields.id])).toEqual([
      [1, 1],
      [6, 2]
    ])
    expect(rejects(all).map((r) => r.line)).toEqual([3, 4, 5])
    expect(rejects(all)[0]!.reason).toMatch(/invalid JSON/)
    expect(rejects(all)[1]!.reason).toMatch(/array/)
    expect(all.map((i) => i.ordinal)).toEqual([0, 1, 2, 3, 4])
  })
})

describe("Parquet source (files written by DuckDB)", () => {
  const duckdbWrite = async (name: string, options: string, rows = 5000) => {
    const path = join(dir, name)
    const db = await DuckDBInstance.create(":memory:")
    const conn = await db.connect()
    await conn.run(
      `COPY (SELECT i AS id, 'text ' || (i % 7) AS body, (i % 3)::INTEGER AS grp, i * 1.5 AS score,
              CASE WHEN i % 10 = 0 THEN NULL ELSE 'x' || i END AS maybe, ['a', 'b'][1 + i % 2] AS cat
            FROM range(${rows}) t(i) ORDER BY i)
       TO '${path}' (FORMAT parquet, ${options})`
    )
    conn.closeSync()
    return path
  }

  for (const [name, options] of [
    ["zstd-v2.parquet", "COMPRESSION zstd, PARQUET_VERSION v2, ROW_GROUP_SIZE 1000"],
    ["snappy.parquet", "COMPRESSION snappy, ROW_GROUP_SIZE 2048"],
    ["gzip-v2.parquet", "COMPRESSION gzip, PARQUET_VERSION v2"],
    ["uncompressed.parquet", "COMPRESSION uncompressed"]
  ] as const) {
    it(`reads ${name} with types, nulls and dictionary columns, in order`, async () => {
      const path = await duckdbWrite(name, options)
      const source = parquetSource(path)
      expect(await Effect.runPromise(source.columns)).toEqual(["id", "body", "grp", "score", "maybe", "cat"])
      const all = await items(source)
      expect(all).toHaveLength(5000)
      const r = records(all)
      expect(r[0]!.fields).toEqual({ id: 0, body: "text 0", grp: 0, score: 0, maybe: null, cat: "a" })
      expect(r[4321]!.fields).toEqual({ id: 4321, body: "text 2", grp: 1, score: 6481.5, maybe: "x4321", cat: "b" })
      expect(r.map((x) => x.ordinal)).toEqual(Array.from({ length: 5000 }, (_, i) => i))
      expect(typeof r[7]!.fields.grp).toBe("number") // dictionary-encoded numbers stay numbers
    })
  }
})
