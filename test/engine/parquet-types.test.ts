/**
 * Parquet → Parquet keeps the input's column types (issue 11, item 5), and an output that cannot
 * be written fails before any request; JSONL → Parquet picks types every value fits. Fixtures
 * written by DuckDB, the output read back by DuckDB.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import { parquetSource } from "../../src/io/sources/parquet.ts"
import type { InputTypes } from "../../src/io/input-types.ts"
import type { Source } from "../../src/io/source.ts"
import { duck } from "../duck.ts"
import { KEY } from "../helpers.ts"
import { runOnce, tempDir } from "./run-helpers.ts"

const ROWS = 3000

/** Every type the issue names; `big` passes 2^31 only in the last row, `late` is null until row 2,500. */
const writeFixture = (path: string) =>
  duck(
    `COPY (SELECT 'p' || i AS id, 'a quiet day ' || i AS text,
            CASE WHEN i = ${ROWS - 1} THEN 3000002000 ELSE i END::BIGINT AS big,
            DATE '2024-01-01' + i::INTEGER AS day,
            TIMESTAMP '2024-01-01 10:00:00.123' + INTERVAL (i) SECOND AS seen_at,
            (i / 8)::DECIMAL(10,2) AS price,
            [i, i + 1] AS pair,
            {'n': i, 'tag': 't' || i} AS info,
            CASE WHEN i < 2500 THEN NULL ELSE 'late ' || i END AS late
          FROM range(${ROWS}) t(i)) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 1000)`
  )

/** The Parquet source of `path`, its `text` column declared INT64. */
const mistyped = (path: string): Source => {
  const source = parquetSource(path)
  return {
    ...source,
    inputTypes: Effect.map(source.inputTypes!, (types): InputTypes | undefined => {
      if (types?._tag !== "Parquet") return types
      return {
        _tag: "Parquet",
        schema: types.schema.map((e) =>
          e.name === "text" ? { name: "text", type: "INT64", repetition_type: "OPTIONAL" } : e
        )
      }
    })
  }
}

const typesOf = (path: string) =>
  Effect.promise(async () =>
    Object.fromEntries(
      (await duck(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${path}')`)).map((r) => [
        r.column_name,
        r.column_type
      ])
    )
  )

describe("Parquet output types", () => {
  it.scopedLive("Parquet input columns keep their Parquet types in a Parquet output", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = join(dir, "in.parquet")
      yield* Effect.promise(() => writeFixture(input))
      const run = yield* runOnce({ dir, input, emulator, format: "parquet" })
      expect(run.summary).toMatchObject({ status: "finished", done: ROWS, failed: 0 })
      const types = yield* typesOf(run.output)
      expect(types).toMatchObject({
        id: "VARCHAR",
        big: "BIGINT",
        day: "DATE",
        seen_at: "TIMESTAMP",
        price: "DECIMAL(10,2)",
        pair: "BIGINT[]",
        info: "STRUCT(n BIGINT, tag VARCHAR)",
        late: "VARCHAR"
      })
    })
  )

  it.scopedLive("Parquet input values come out equal to the input's, the late BIGINT over 2^31 included", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = join(dir, "in.parquet")
      yield* Effect.promise(() => writeFixture(input))
      const run = yield* runOnce({ dir, input, emulator, format: "parquet" })
      const columns = "id, text, big, day, seen_at, price, pair, info, late"
      const differing = yield* Effect.promise(() =>
        duck(
          `SELECT count(*)::INTEGER AS n FROM (SELECT ${columns} FROM '${input}' EXCEPT SELECT ${columns} FROM '${run.output}')`
        )
      )
      expect(differing[0]!.n).toBe(0)
      const last = yield* Effect.promise(() =>
        duck(`SELECT big::VARCHAR AS big FROM '${run.output}' WHERE id = 'p${ROWS - 1}'`)
      )
      expect(last[0]!.big).toBe("3000002000")
    })
  )

  it.scopedLive("an output the writer cannot write fails before any request is sent", () =>
    Effect.gen(function* () {
      let requests = 0
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: () => void requests++ })
      const dir = tempDir()
      const input = join(dir, "in.parquet")
      yield* Effect.promise(() =>
        duck(
          `COPY (SELECT 'p' || i AS id, 'a quiet day ' || i AS text FROM range(10) t(i)) TO '${input}' (FORMAT parquet)`
        )
      )
      const run = yield* Effect.either(
        runOnce({
          dir,
          input,
          emulator,
          format: "parquet",
          // A source whose declared types its values do not fit (text declared INT64): the check
          // encodes the first rows with the output's schema before the processing pass.
          overrides: { source: mistyped(input) }
        })
      )
      expect(run._tag === "Left" && run.left._tag).toBe("SinkError")
      expect(requests).toBe(0)
    })
  )

  it.scopedLive("a Parquet column of a type the writer cannot write (MAP) comes out as JSON text, not a failure", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = join(dir, "in.parquet")
      yield* Effect.promise(() =>
        duck(
          `COPY (SELECT 'p' || i AS id, 'a quiet day ' || i AS text, MAP {'k': i} AS m FROM range(20) t(i)) TO '${input}' (FORMAT parquet)`
        )
      )
      const run = yield* runOnce({ dir, input, emulator, format: "parquet" })
      expect(run.summary).toMatchObject({ status: "finished", done: 20 })
      expect((yield* typesOf(run.output)).m).toBe("VARCHAR")
      const rows = yield* Effect.promise(() => duck(`SELECT m FROM '${run.output}' WHERE id = 'p3'`))
      expect(JSON.parse(String(rows[0]!.m))).toEqual({ k: 3 })
    })
  )

  it.scopedLive("an input column a stage writes again takes the stage's type, not the input's", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = join(dir, "in.parquet")
      // moderation_verdict is BIGINT in the input; the moderation stage writes text into it.
      yield* Effect.promise(() =>
        duck(
          `COPY (SELECT 'p' || i AS id, 'a quiet day ' || i AS text, i::BIGINT AS moderation_verdict FROM range(20) t(i)) TO '${input}' (FORMAT parquet)`
        )
      )
      const run = yield* runOnce({ dir, input, emulator, format: "parquet" })
      expect(run.summary).toMatchObject({ status: "finished", done: 20 })
      expect((yield* typesOf(run.output)).moderation_verdict).toBe("VARCHAR")
    })
  )

  it.scopedLive(
    "JSONL → Parquet: a number over 2^31 after 2,000 small ones and a column null at first are written",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        const input = join(dir, "in.jsonl")
        const lines = Array.from({ length: 2500 }, (_, i) =>
          JSON.stringify({
            id: `r${i}`,
            text: `a quiet day ${i}`,
            n: i === 2400 ? 3000002000 : i,
            late: i < 2200 ? null : `late ${i}`,
            mixed: i === 2300 ? "text" : i
          })
        )
        writeFileSync(input, `${lines.join("\n")}\n`)
        const run = yield* runOnce({ dir, input, emulator, format: "jsonl", outputFormat: "parquet" })
        expect(run.summary).toMatchObject({ status: "finished", done: 2500, failed: 0 })
        const types = yield* typesOf(run.output)
        expect(types).toMatchObject({ n: "BIGINT", late: "VARCHAR", mixed: "VARCHAR" })
        const rows = yield* Effect.promise(() =>
          duck(`SELECT n::VARCHAR AS n, late, mixed FROM '${run.output}' WHERE id IN ('r2400', 'r2300') ORDER BY id`)
        )
        expect(rows).toEqual([
          { n: "2300", late: "late 2300", mixed: "text" },
          { n: "3000002000", late: "late 2400", mixed: "2400" }
        ])
      })
  )
})
