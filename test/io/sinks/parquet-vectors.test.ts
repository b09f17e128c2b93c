/** Vector columns of a Parquet output, written by their own page writer: read back to the bit. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { duck } from "../../duck.ts"
import { column, ColumnType } from "../../../src/pipeline/columns.ts"
import { sinks } from "../../../src/io/sinks/index.ts"

const DIM = 1536
/** 450 rows: three pages of a vector column; every 7th row without a vector. */
const ROWS = 450

const sparseVector = (i: number) => {
  const v = new Float32Array(DIM)
  for (let d = i % 43; d < DIM; d += 43) v[d] = Math.fround((i + 1) * 0.001 * (d + 1))
  return v
}
const denseVector = (i: number) => Float32Array.from({ length: DIM }, (_, d) => Math.sin(i * DIM + d) * 0.03)

const writeVectors = (path: string, vector: (i: number) => Float32Array) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sink = yield* sinks.parquet!.open({
        path,
        inputColumns: ["id"],
        outputColumns: [column("embedding", ColumnType.vector(DIM))]
      })
      for (let i = 0; i < ROWS; i++) {
        // Stored vectors come as Float32Array, fresh answers as arrays of numbers: both are taken.
        const v = i % 7 === 3 ? null : i % 2 === 0 ? vector(i) : Array.from(vector(i))
        yield* sink.write({ id: `r${i}`, embedding: v })
      }
      yield* sink.commit
    })
  )

const sameBits = (back: unknown, expected: Float32Array | null) => {
  if (expected === null) return back === null || back === undefined
  return Buffer.from(Float32Array.from(back as ArrayLike<number>).buffer).equals(Buffer.from(expected.buffer))
}

describe("parquet vector columns", () => {
  for (const [name, vector, codec] of [
    ["sparse", sparseVector, "SNAPPY"],
    ["dense", denseVector, "UNCOMPRESSED"]
  ] as const) {
    it.effect(`${name} vectors: DuckDB and hyparquet read every value back bit for bit; codec ${codec}`, () =>
      Effect.gen(function* () {
        const path = join(mkdtempSync(join(tmpdir(), "svc-parquet-vec-")), "out.parquet")
        yield* writeVectors(path, vector)
        const expected = (i: number) => (i % 7 === 3 ? null : vector(i))
        const viaDuck = yield* Effect.promise(() => duck(`SELECT id, embedding FROM '${path}'`))
        expect(viaDuck).toHaveLength(ROWS)
        viaDuck.forEach((r, i) => {
          expect(r.id).toBe(`r${i}`)
          expect(sameBits(r.embedding, expected(i))).toBe(true)
        })
        const viaHyparquet = yield* Effect.promise(async () =>
          parquetReadObjects({ file: await asyncBufferFromFile(path) })
        )
        viaHyparquet.forEach((r, i) => expect(sameBits(r.embedding, expected(i))).toBe(true))
        const meta = yield* Effect.promise(() =>
          duck(`SELECT DISTINCT compression FROM parquet_metadata('${path}') WHERE path_in_schema LIKE 'embedding%'`)
        )
        expect(meta.map((m) => m.compression)).toEqual([codec])
      })
    )
  }
})
