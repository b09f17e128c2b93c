/**
 * Parquet (hyparquet-writer, snappy), in row groups (2,000 rows; 1,000 when a vector column makes
 * rows large), buffering one row group at a time. Output columns are typed: string → STRING,
 * number → DOUBLE, boolean → BOOLEAN, json → a JSON-annotated string column (DuckDB reads it as
 * JSON, pyarrow as string: portable, unlike a struct whose shape varies by record), vector(n) → a
 * 3-level LIST of FLOAT (DuckDB `FLOAT[]`, pyarrow `list<float>`). Input columns keep their
 * values, with types inferred from the first row group (nullable, so a later null fits).
 */
import { Effect } from "effect"
import type { SchemaElement } from "hyparquet"
import { fileWriter, ParquetWriter, schemaFromColumnData } from "hyparquet-writer"
import type { Column } from "../columns.ts"
import { atomicPath } from "../atomic-file.ts"
import { addedColumns, SinkError, type SinkAdapter } from "../sink.ts"
import { renameSync } from "node:fs"

const outputSchema = (c: Column): ReadonlyArray<SchemaElement> => {
  switch (c.type._tag) {
    case "string":
      return [{ name: c.name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" }]
    case "number":
      return [{ name: c.name, type: "DOUBLE", repetition_type: "OPTIONAL" }]
    case "boolean":
      return [{ name: c.name, type: "BOOLEAN", repetition_type: "OPTIONAL" }]
    case "json":
      return [{ name: c.name, type: "BYTE_ARRAY", converted_type: "JSON", repetition_type: "OPTIONAL" }]
    case "vector":
      return [
        { name: c.name, repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
        { name: "list", repetition_type: "REPEATED", num_children: 1 },
        { name: "element", type: "FLOAT", repetition_type: "OPTIONAL" }
      ]
  }
}

/** An input value as the writer takes it: objects and arrays as JSON text. */
const inputValue = (v: unknown): unknown =>
  v === undefined ? null : v !== null && typeof v === "object" && !(v instanceof Date) && !(v instanceof Uint8Array) ? JSON.stringify(v) : v

export const parquetSinkWith = (rowGroupSize?: number): SinkAdapter => ({
  name: "parquet",
  extensions: [".parquet"],
  open: (spec) =>
    Effect.gen(function* () {
      const file = yield* atomicPath(spec.path)
      const added = addedColumns(spec)
      const groupSize = rowGroupSize ?? (added.some((c) => c.type._tag === "vector") ? 1000 : 2000)
      const fail = (detail: string) => new SinkError({ path: spec.path, detail })
      let writer: ParquetWriter | undefined
      let buffer: Array<Readonly<Record<string, unknown>>> = []
      let rowsWritten = 0

      const outputValue = (c: Column, v: unknown, row: number): unknown => {
        if (v === undefined || v === null) return null
        switch (c.type._tag) {
          case "string":
            return typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v)
          case "number":
            if (typeof v !== "number") throw fail(`column ${c.name}, row ${row}: expected a number, got ${JSON.stringify(v)}`)
            return v
          case "boolean":
            if (typeof v !== "boolean") throw fail(`column ${c.name}, row ${row}: expected a boolean, got ${JSON.stringify(v)}`)
            return v
          case "json":
            return v
          case "vector":
            if (!Array.isArray(v) || v.length !== c.type.dim || v.some((x) => typeof x !== "number")) {
              throw fail(`column ${c.name}, row ${row}: expected vector(${c.type.dim}), got ${Array.isArray(v) ? `${v.length} values` : typeof v}`)
            }
            return v
        }
      }

      const flush = Effect.gen(function* () {
        if (buffer.length === 0 && writer !== undefined) return
        const rows = buffer
        buffer = []
        const columnData = yield* Effect.try({
          try: () => [
            ...spec.inputColumns.map((name) => ({ name, data: rows.map((r) => inputValue(r[name])) })),
            ...added.map((c) => ({
              name: c.name,
              data: rows.map((r, i) => outputValue(c, r[c.name], rowsWritten + i + 1)),
              // Floats of a vector neither repeat nor get filtered on: no dictionary, no min/max (3× faster).
              ...(c.type._tag === "vector" ? { encoding: "PLAIN" as const, statistics: false } : {})
            }))
          ],
          catch: (e) => (e instanceof SinkError ? e : fail((e as Error).message))
        })
        if (writer === undefined) {
          // Input column types from the first row group (every one nullable); outputs from their types.
          const inferred = schemaFromColumnData({ columnData: columnData.slice(0, spec.inputColumns.length) })
          const schema: Array<SchemaElement> = [
            { name: "root", num_children: spec.inputColumns.length + added.length },
            ...inferred.slice(1).map((e) => ({ ...e, repetition_type: "OPTIONAL" as const })),
            ...added.flatMap(outputSchema)
          ]
          writer = new ParquetWriter({ writer: fileWriter(file.tmp), schema })
        }
        const w = writer
        yield* Effect.tryPromise({
          try: async () => void (await w.write({ columnData, rowGroupSize: Math.max(1, rows.length) })),
          catch: (e) => fail((e as Error).message)
        })
        rowsWritten += rows.length
      })

      return {
        write: (row) =>
          Effect.suspend(() => {
            buffer.push(row)
            return buffer.length >= groupSize ? flush : Effect.void
          }),
        commit: Effect.gen(function* () {
          yield* flush
          const w = writer!
          yield* Effect.tryPromise({
            try: async () => {
              await w.finish()
              renameSync(file.tmp, spec.path)
              file.committed()
            },
            catch: (e) => fail((e as Error).message)
          })
        })
      }
    })
})

export const parquetSink = parquetSinkWith()
