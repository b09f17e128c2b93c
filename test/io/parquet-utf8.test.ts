/**
 * Parquet strings are decoded strictly: a row whose string column holds bytes that are not UTF-8
 * is a reject naming the column and the row, never a record with U+FFFD in the text sent. A BLOB
 * column (binary by nature) is read as text as before. The file is written by DuckDB, then the
 * bytes of one value are replaced in place (uncompressed, so the value is in the file verbatim).
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parquetSource } from "../../src/io/sources/parquet.ts"
import { tempDir } from "../engine/run-helpers.ts"

const write = async (path: string, select: string) => {
  const db = await DuckDBInstance.create(":memory:")
  const conn = await db.connect()
  await conn.run(`COPY (${select}) TO '${path}' (FORMAT parquet, COMPRESSION uncompressed)`)
  conn.closeSync()
}

/** Every occurrence of `marker` in the file (the value, and its statistics) replaced by `bytes`. */
const patch = (path: string, marker: string, bytes: ReadonlyArray<number>) => {
  const file = readFileSync(path)
  const m = Buffer.from(marker)
  expect(bytes.length).toBe(m.length)
  let found = 0
  for (let i = file.indexOf(m); i !== -1; i = file.indexOf(m, i + 1), found++) Buffer.from(bytes).copy(file, i)
  expect(found).toBeGreaterThan(0)
  writeFileSync(path, file)
}

const items = (path: string) =>
  Effect.runPromise(Stream.runCollect(parquetSource(path).items()).pipe(Effect.map(Chunk.toArray)))

describe("Parquet strings with bytes that are not UTF-8", () => {
  it("a row with one in a string column is a reject naming the column; the other rows and a BLOB column read as before", async () => {
    const path = join(tempDir(), "bad.parquet")
    await write(
      path,
      `SELECT i AS id, CASE WHEN i = 2 THEN '日本QQQQ' ELSE 'text ' || i END AS body, CASE WHEN i = 3 THEN '\\x41\\xFF'::BLOB ELSE 'b'::BLOB END AS blob FROM range(5) t(i) ORDER BY i`
    )
    patch(path, "QQQQ", [0x51, 0xff, 0xfe, 0x51])
    const all = await items(path)
    expect(all.map((i) => [i._tag, i.ordinal, i.line])).toEqual([
      ["Record", 0, 1],
      ["Record", 1, 2],
      ["Reject", 2, 3],
      ["Record", 3, 4],
      ["Record", 4, 5]
    ])
    const reject = all[2]!
    expect(reject._tag === "Reject" && reject.reason).toBe('invalid UTF-8 in column "body" of row 3')
    const blob = all[3]!
    expect(blob._tag === "Record" && blob.fields).toEqual({ id: 3, body: "text 3", blob: "A\uFFFD" })
  })
})
