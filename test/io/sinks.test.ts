/** The sink port's adapters: typed columns per format, atomic commit, row groups. */
import { describe, expect, it } from "@effect/vitest"
import { duck } from "../duck.ts"
import { parse } from "csv-parse/sync"
import { Effect, Exit, Scope } from "effect"
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { column, ColumnType } from "../../src/pipeline/columns.ts"
import type { SinkSpec } from "../../src/io/sink.ts"
import { sinks } from "../../src/io/sinks/index.ts"

const spec = (path: string): SinkSpec => ({
  path,
  inputColumns: ["id", "n"],
  outputColumns: [
    column("label", ColumnType.string),
    column("score", ColumnType.number),
    column("ok", ColumnType.boolean),
    column("meta", ColumnType.json),
    column("vec", ColumnType.vector(4))
  ]
})

const rows = [
  { id: "a", n: 1, label: "first", score: 0.25, ok: true, meta: { tags: ["x"], k: 1 }, vec: [0.1, 0.2, 0.3, 0.4] },
  // Every output column missing: written as null.
  { id: "b", n: 2 },
  { id: "c", n: 3, label: 'line\nbreak, "quoted"', score: 3, ok: false, meta: [1, 2], vec: [1, 2, 3, 4] }
]

const writeAll = (format: string, path: string, data: ReadonlyArray<Record<string, unknown>> = rows) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sink = yield* sinks[format]!.open(spec(path))
      for (const row of data) yield* sink.write(row)
      yield* sink.commit
    })
  )

const dir = () => mkdtempSync(join(tmpdir(), "svc-sinks-"))

describe("sinks", () => {
  it.effect("parquet: vector as FLOAT[], json as JSON, typed scalars, nulls for missing values", () =>
    Effect.gen(function* () {
      const path = join(dir(), "out.parquet")
      yield* writeAll("parquet", path)
      const types = yield* Effect.promise(() =>
        duck(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${path}')`)
      )
      expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).toMatchObject({
        label: "VARCHAR",
        score: "DOUBLE",
        ok: "BOOLEAN",
        meta: "JSON",
        vec: "FLOAT[]"
      })
      const back = yield* Effect.promise(() =>
        duck(`SELECT id, label, score, ok, CAST(meta AS VARCHAR) AS meta, vec FROM '${path}' ORDER BY id`)
      )
      expect(back[0]).toMatchObject({ id: "a", label: "first", score: 0.25, ok: true })
      expect(JSON.parse(String(back[0]!.meta))).toEqual({ tags: ["x"], k: 1 })
      const vec = back[0]!.vec as ReadonlyArray<number>
      ;[0.1, 0.2, 0.3, 0.4].forEach((v, i) => expect(vec[i]).toBeCloseTo(v, 6))
      expect(back[1]).toMatchObject({ id: "b", label: null, score: null, ok: null, meta: null, vec: null })
      expect(back[2]!.label).toBe('line\nbreak, "quoted"')
    })
  )

  it.effect("csv: a header, a BOM, vectors and JSON as JSON text, empty fields for null", () =>
    Effect.gen(function* () {
      const path = join(dir(), "out.csv")
      yield* writeAll("csv", path)
      const text = readFileSync(path, "utf8")
      expect(text.startsWith("\uFEFFid,n,label,score,ok,meta,vec\n")).toBe(true)
      const back = parse(text, { columns: true, bom: true }) as Array<Record<string, string>>
      expect(back[0]).toEqual({
        id: "a",
        n: "1",
        label: "first",
        score: "0.25",
        ok: "true",
        meta: '{"tags":["x"],"k":1}',
        vec: "[0.1,0.2,0.3,0.4]"
      })
      expect(back[1]).toEqual({ id: "b", n: "2", label: "", score: "", ok: "", meta: "", vec: "" })
      expect(back[2]).toMatchObject({ label: 'line\nbreak, "quoted"', ok: "false" })
    })
  )

  it.effect("jsonl: native values, and every output column present (null when missing)", () =>
    Effect.gen(function* () {
      const path = join(dir(), "out.jsonl")
      yield* writeAll("jsonl", path)
      const back = readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(back[0]).toEqual(rows[0])
      expect(back[1]).toEqual({ id: "b", n: 2, label: null, score: null, ok: null, meta: null, vec: null })
    })
  )

  for (const format of ["csv", "jsonl", "parquet"]) {
    it.effect(`${format}: a sink whose scope closes before commit leaves no file behind`, () =>
      Effect.gen(function* () {
        const folder = dir()
        const path = join(folder, `out.${format}`)
        const scope = yield* Scope.make()
        const sink = yield* sinks[format]!.open(spec(path)).pipe(Scope.extend(scope))
        yield* sink.write(rows[0]!)
        yield* Scope.close(scope, Exit.void)
        expect(readdirSync(folder)).toEqual([])
        yield* writeAll(format, path)
        expect(readdirSync(folder)).toEqual([`out.${format}`])
      })
    )
  }

  it.effect("parquet: a vector of the wrong length fails naming the column and row", () =>
    Effect.gen(function* () {
      const path = join(dir(), "bad.parquet")
      const error = yield* Effect.flip(writeAll("parquet", path, [{ id: "x", n: 1, vec: [1, 2, 3] }]))
      expect(error.message).toMatch(/column vec, row 1: expected vector\(4\), got 3 values/)
      expect(existsSync(path)).toBe(false)
    })
  )

  it.effect("parquet: 5,000 rows go out in several row groups, in order", () =>
    Effect.gen(function* () {
      const path = join(dir(), "many.parquet")
      const many = Array.from({ length: 5000 }, (_, i) => ({ id: `r${i}`, n: i, label: `l${i}`, vec: [i, i, i, i] }))
      yield* writeAll("parquet", path, many)
      const meta = yield* Effect.promise(() =>
        duck(`SELECT count(DISTINCT row_group_id) AS groups FROM parquet_metadata('${path}')`)
      )
      expect(Number(meta[0]!.groups)).toBeGreaterThan(1)
      const back = yield* Effect.promise(() => duck(`SELECT n FROM '${path}'`))
      expect(back.map((r) => Number(r.n))).toEqual(many.map((r) => r.n))
    })
  )
})
