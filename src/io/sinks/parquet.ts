/**
 * Parquet (hyparquet-writer, snappy), in row groups (2,000 rows; 1,000 when a vector column makes
 * rows large), buffering one row group at a time. Output columns are typed: string → STRING,
 * number → DOUBLE, boolean → BOOLEAN, json → a JSON-annotated string column (DuckDB reads it as
 * JSON, pyarrow as string: portable, unlike a struct whose shape varies by record), vector(n) → a
 * 3-level LIST of FLOAT (DuckDB `FLOAT[]`, pyarrow `list<float>`).
 * Input columns (input-types.ts): a Parquet input's columns keep their own Parquet types (INT64,
 * DATE, TIMESTAMP, DECIMAL, LIST, STRUCT, …; a type the writer cannot write — MAP, INT96, a
 * legacy 2-level list — becomes JSON text, said once); CSV and JSONL columns get the narrowest type
 * that fits every value met in the input (mixed kinds: text). `check` encodes the input's first
 * rows before any request is sent, so an output that cannot be written fails first, not last.
 */
import { Effect } from "effect"
import type { ColumnChunk, SchemaElement, SchemaTree } from "hyparquet"
import { ByteWriter, fileWriter, ParquetWriter, schemaFromColumnData } from "hyparquet-writer"
import { writeColumn } from "hyparquet-writer/src/column.js"
import { encodeNestedValues } from "hyparquet-writer/src/dremel.js"
import { schemaPathResolver } from "hyparquet-writer/src/schema.js"
import { writeVectorChunk, type VectorValue } from "./parquet-vector-column.ts"
import type { Column } from "../../pipeline/columns.ts"
import { atomicPath } from "../atomic-file.ts"
import type { InputTypes, ValueKind } from "../input-types.ts"
import { addedColumns, SinkError, type SinkAdapter, type SinkSpec } from "../sink.ts"
import { renameSync } from "node:fs"

/** How one input column is written: its schema elements and how a source value becomes a writer value. */
interface InputColumnPlan {
  readonly elements: ReadonlyArray<SchemaElement>
  readonly convert: (v: unknown) => unknown
  /** Why the column is not written with its input type. */
  readonly note?: string
}

interface SchemaNode {
  readonly element: SchemaElement
  readonly children: ReadonlyArray<SchemaNode>
  /** The node and its descendants, flat, in schema order. */
  readonly flat: ReadonlyArray<SchemaElement>
}

/** The top-level columns of a flat Parquet schema (root left out), as trees. */
const schemaTrees = (schema: ReadonlyArray<SchemaElement>): Map<string, SchemaNode> => {
  let i = 0
  const node = (): SchemaNode => {
    const start = i
    const element = schema[i++]!
    const children: Array<SchemaNode> = []
    for (let c = 0; c < (element.num_children ?? 0); c++) children.push(node())
    return { element, children, flat: schema.slice(start, i) }
  }
  const out = new Map<string, SchemaNode>()
  while (i < schema.length) {
    const n = node()
    out.set(n.element.name, n)
  }
  return out
}

const asText = (v: unknown): string =>
  typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v)
const nullable = (f: (v: unknown) => unknown) => (v: unknown) => (v === null || v === undefined ? null : f(v))
const asBigInt = (v: unknown) =>
  BigInt.asIntN(64, typeof v === "bigint" ? v : BigInt(typeof v === "number" ? Math.trunc(v) : String(v)))
const asDate = (v: unknown) => (v instanceof Date ? v : new Date(typeof v === "number" ? v : String(v)))
const textColumn = (name: string, note?: string): InputColumnPlan => ({
  elements: [{ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" }],
  convert: nullable(asText),
  ...(note !== undefined ? { note } : {})
})

/** A leaf's converter from the source's plain value (sources give JSON-friendly values), or why not. */
const leafConverter = (e: SchemaElement): ((v: unknown) => unknown) | string => {
  const ct = e.converted_type
  const lt = e.logical_type
  if (ct === "DECIMAL" || lt?.type === "DECIMAL") return (v) => (typeof v === "bigint" ? v : Number(v))
  switch (e.type) {
    case "BOOLEAN":
      return (v) => (typeof v === "boolean" ? v : v === "true")
    case "FLOAT":
    case "DOUBLE":
      return Number
    case "INT32":
      return ct === "DATE" || lt?.type === "DATE" ? asDate : Number
    case "INT64":
      return ct === "TIMESTAMP_MILLIS" || ct === "TIMESTAMP_MICROS" || lt?.type === "TIMESTAMP" ? asDate : asBigInt
    case "BYTE_ARRAY":
      if (ct === "UTF8" || ct === "ENUM" || lt?.type === "STRING" || lt?.type === "ENUM") return asText
      if (ct === "JSON" || lt?.type === "JSON") return (v) => v
      if (ct === undefined && lt === undefined)
        return (v) => (v instanceof Uint8Array ? v : new TextEncoder().encode(asText(v)))
      return `${ct ?? lt?.type} byte arrays`
    case "FIXED_LEN_BYTE_ARRAY":
      if (lt?.type === "UUID") return asText
      if (lt?.type === "FLOAT16") return Number
      return "fixed-length byte arrays"
    default:
      return `${e.type}`
  }
}

/** A converter for a column's tree (leaf, 3-level LIST, STRUCT), or the reason it is not written as such. */
const treeConverter = (n: SchemaNode): ((v: unknown) => unknown) | string => {
  const e = n.element
  if (n.children.length === 0) {
    const leaf = leafConverter(e)
    return typeof leaf === "string" ? leaf : nullable(leaf)
  }
  if (e.converted_type === "MAP" || e.converted_type === "MAP_KEY_VALUE" || e.logical_type?.type === "MAP") return "MAP"
  if (e.converted_type === "LIST" || e.logical_type?.type === "LIST") {
    const repeated = n.children[0]!
    if (n.children.length !== 1 || repeated.element.repetition_type !== "REPEATED" || repeated.children.length !== 1)
      return "a legacy (2-level) LIST"
    const item = treeConverter(repeated.children[0]!)
    if (typeof item === "string") return item
    return nullable((v) => (Array.isArray(v) ? v.map(item) : [item(v)]))
  }
  if (n.children.some((c) => c.element.repetition_type === "REPEATED")) return "a repeated field outside a LIST"
  const fields: Array<[string, (v: unknown) => unknown]> = []
  for (const c of n.children) {
    const f = treeConverter(c)
    if (typeof f === "string") return f
    fields.push([c.element.name, f])
  }
  return nullable((v) => {
    const o = v as Record<string, unknown>
    return Object.fromEntries(fields.map(([k, f]) => [k, f(o[k])]))
  })
}

const observedColumn = (name: string, kinds: ReadonlySet<ValueKind>): InputColumnPlan => {
  const only = (...allowed: Array<ValueKind>) => kinds.size > 0 && [...kinds].every((k) => allowed.includes(k))
  if (only("boolean"))
    return { elements: [{ name, type: "BOOLEAN", repetition_type: "OPTIONAL" }], convert: nullable((v) => v) }
  if (only("int32"))
    return { elements: [{ name, type: "INT32", repetition_type: "OPTIONAL" }], convert: nullable(Number) }
  if (only("int32", "int64"))
    return { elements: [{ name, type: "INT64", repetition_type: "OPTIONAL" }], convert: nullable(asBigInt) }
  if (only("int32", "int64", "number"))
    return { elements: [{ name, type: "DOUBLE", repetition_type: "OPTIONAL" }], convert: nullable(Number) }
  // Strings, objects, mixed kinds, or only nulls: text (objects as JSON), which every value fits.
  return textColumn(name)
}

/** How each input column is written, from what is known of the input's types. */
export const inputColumnPlans = (
  names: ReadonlyArray<string>,
  types: InputTypes | undefined
): Map<string, InputColumnPlan> | undefined => {
  if (types === undefined) return undefined
  const plans = new Map<string, InputColumnPlan>()
  if (types._tag === "Observed") {
    for (const name of names) plans.set(name, observedColumn(name, types.kinds.get(name) ?? new Set()))
    return plans
  }
  const trees = schemaTrees(types.schema)
  for (const name of names) {
    const tree = trees.get(name)
    if (tree === undefined) {
      plans.set(name, textColumn(name))
      continue
    }
    const convert = treeConverter(tree)
    if (typeof convert === "string") {
      plans.set(
        name,
        textColumn(name, `input column ${name}: ${convert} cannot be written to Parquet here; written as JSON text`)
      )
      continue
    }
    // hyparquet-writer scales a DECIMAL only by its converted type.
    const flat = tree.flat.map((e) =>
      e.logical_type?.type === "DECIMAL" && e.converted_type === undefined
        ? { ...e, converted_type: "DECIMAL" as const }
        : e
    )
    plans.set(name, { elements: flat, convert })
  }
  return plans
}

/** The notes of columns not written with their input type (for a warning). */
export const parquetInputNotes = (spec: SinkSpec): ReadonlyArray<string> =>
  [...(inputColumnPlans(spec.inputColumns, spec.inputTypes)?.values() ?? [])].flatMap((p) =>
    p.note !== undefined ? [p.note] : []
  )

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
  v === undefined
    ? null
    : v !== null && typeof v === "object" && !(v instanceof Date) && !(v instanceof Uint8Array)
      ? JSON.stringify(v)
      : v

type Target = ReturnType<typeof fileWriter>

/** A vector of `dim` numbers: a Float32Array (a stored vector), or an array checked value by value. */
const isVector = (v: unknown, dim: number): v is VectorValue => {
  if (v instanceof Float32Array) return v.length === dim
  if (!Array.isArray(v) || v.length !== dim) return false
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "number") return false
  return true
}

/** One column of a row group: values for hyparquet-writer, or vectors for writeVectorChunk. */
type GroupColumn =
  | { readonly name: string; readonly data: Array<unknown>; readonly vectorDim?: undefined }
  | { readonly name: string; readonly data: Array<VectorValue | null>; readonly vectorDim: number }

/** The leaf paths under a column (one for a leaf or a list, one per field of a struct). */
const leafPaths = (path: Array<SchemaTree>): Array<Array<SchemaTree>> => {
  const node = path[path.length - 1]!
  return node.children.length === 0 ? [path] : node.children.flatMap((c) => leafPaths([...path, c]))
}

/**
 * One row group, as ParquetWriter.write writes it (its column loop, without the variant and bloom
 * options this sink never sets), except that vector columns go through writeVectorChunk.
 */
const writeRowGroup = (
  pw: ParquetWriter,
  resolve: ReturnType<typeof schemaPathResolver>,
  columns: ReadonlyArray<GroupColumn>,
  rows: number
) => {
  if (rows === 0) return
  const groupStart = pw.writer.offset
  const chunks: Array<ColumnChunk> = []
  for (const c of columns) {
    if (c.vectorDim !== undefined) {
      const written = writeVectorChunk(pw.writer, c.name, c.vectorDim, c.data, pw.codec)
      chunks.push(written.chunk)
      pw.pendingIndexes.push(
        written.offsetIndex === undefined
          ? { chunk: written.chunk }
          : { chunk: written.chunk, offsetIndex: written.offsetIndex }
      )
      continue
    }
    for (const leafPath of leafPaths(resolve([c.name]))) {
      const schemaPath = leafPath.map((n) => n.element)
      const result = writeColumn({
        writer: pw.writer,
        column: {
          columnName: schemaPath
            .slice(1)
            .map((e) => e.name)
            .join("."),
          element: schemaPath[schemaPath.length - 1]!,
          schemaPath,
          codec: pw.codec,
          compressors: pw.compressors,
          stats: pw.statistics,
          pageSize: 1 << 20,
          columnIndex: false,
          offsetIndex: true
        },
        pageData: encodeNestedValues(leafPath, c.data as Parameters<typeof encodeNestedValues>[1])
      })
      chunks.push(result.chunk)
      pw.pendingIndexes.push(result)
    }
  }
  let totalBytes = 0n
  for (const { meta_data } of chunks) totalBytes += meta_data?.total_uncompressed_size ?? 0n
  pw.num_rows += BigInt(rows)
  pw.row_groups.push({
    columns: chunks,
    total_byte_size: totalBytes,
    num_rows: BigInt(rows),
    total_compressed_size: BigInt(pw.writer.offset - groupStart)
  })
}

/** Encodes rows into row groups for `target` (a file, or memory for the check). */
const makeEncoder = (spec: SinkSpec, rowGroupSize: number | undefined, target: () => Target) => {
  const added = addedColumns(spec)
  const groupSize = rowGroupSize ?? (added.some((c) => c.type._tag === "vector") ? 1000 : 2000)
  const fail = (detail: string) => new SinkError({ path: spec.path, detail })
  let writer: ParquetWriter | undefined
  let resolve: ReturnType<typeof schemaPathResolver> | undefined
  let buffer: Array<Readonly<Record<string, unknown>>> = []
  let rowsWritten = 0
  const plans = inputColumnPlans(spec.inputColumns, spec.inputTypes)
  // An input column a stage writes again holds the stage's values: it takes the stage's type.
  for (const c of spec.outputColumns) {
    if (plans?.has(c.name)) plans.set(c.name, { elements: outputSchema(c), convert: (v) => outputValue(c, v, 0) })
  }

  const outputValue = (c: Column, v: unknown, row: number): unknown => {
    if (v === undefined || v === null) return null
    switch (c.type._tag) {
      case "string":
        return typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v)
      case "number":
        if (typeof v !== "number")
          throw fail(`column ${c.name}, row ${row}: expected a number, got ${JSON.stringify(v)}`)
        return v
      case "boolean":
        if (typeof v !== "boolean")
          throw fail(`column ${c.name}, row ${row}: expected a boolean, got ${JSON.stringify(v)}`)
        return v
      case "json":
        return v
      case "vector":
        if (!isVector(v, c.type.dim)) {
          throw fail(
            `column ${c.name}, row ${row}: expected vector(${c.type.dim}), got ${Array.isArray(v) || v instanceof Float32Array ? `${v.length} values` : typeof v}`
          )
        }
        return v
    }
  }

  const flush = Effect.gen(function* () {
    if (buffer.length === 0 && writer !== undefined) return
    const rows = buffer
    buffer = []
    const columnData = yield* Effect.try({
      try: (): Array<GroupColumn> => [
        ...spec.inputColumns.map((name) => {
          const plan = plans?.get(name)
          return { name, data: rows.map((r) => (plan !== undefined ? plan.convert(r[name]) : inputValue(r[name]))) }
        }),
        ...added.map((c): GroupColumn => {
          const data = rows.map((r, i) => outputValue(c, r[c.name], rowsWritten + i + 1))
          return c.type._tag === "vector"
            ? { name: c.name, data: data as Array<VectorValue | null>, vectorDim: c.type.dim }
            : { name: c.name, data }
        })
      ],
      catch: (e) => (e instanceof SinkError ? e : fail((e as Error).message))
    })
    if (writer === undefined) {
      // Input column types from the input (or, when nothing is known of them, from the first
      // row group, every one nullable); outputs from their types.
      const inputElements =
        plans !== undefined
          ? spec.inputColumns.flatMap((name) => plans.get(name)!.elements)
          : schemaFromColumnData({ columnData: columnData.slice(0, spec.inputColumns.length) })
              .slice(1)
              .map((e) => ({ ...e, repetition_type: "OPTIONAL" as const }))
      const schema: Array<SchemaElement> = [
        { name: "root", num_children: spec.inputColumns.length + added.length },
        ...inputElements,
        ...added.flatMap(outputSchema)
      ]
      // Creating the file can fail (no space for it, no permission): an error, not a defect.
      writer = yield* Effect.try({
        try: () => new ParquetWriter({ writer: target(), schema }),
        catch: (e) => fail((e as Error).message)
      })
      resolve = schemaPathResolver(schema)
    }
    const w = writer
    const r = resolve!
    yield* Effect.try({
      try: () => writeRowGroup(w, r, columnData, rows.length),
      catch: (e) => fail((e as Error).message)
    })
    rowsWritten += rows.length
  })

  return {
    write: (row: Readonly<Record<string, unknown>>) =>
      Effect.suspend(() => {
        buffer.push(row)
        return buffer.length >= groupSize ? flush : Effect.void
      }),
    /** Writes what is buffered and the file's footer. */
    finish: Effect.gen(function* () {
      yield* flush
      const w = writer!
      yield* Effect.tryPromise({ try: async () => void (await w.finish()), catch: (e) => fail((e as Error).message) })
    }),
    fail
  }
}

export const parquetSinkWith = (rowGroupSize?: number): SinkAdapter => ({
  name: "parquet",
  extensions: [".parquet"],
  needs: "types",
  open: (spec) =>
    Effect.gen(function* () {
      const file = yield* atomicPath(spec.path)
      const encoder = makeEncoder(spec, rowGroupSize, () => fileWriter(file.tmp))
      return {
        write: encoder.write,
        commit: Effect.gen(function* () {
          yield* encoder.finish
          yield* Effect.try({
            try: () => {
              renameSync(file.tmp, spec.path)
              file.committed()
            },
            catch: (e) => encoder.fail((e as Error).message)
          })
        })
      }
    }),
  // The input's first rows (output columns null) encoded in memory with the output's schema.
  check: (spec, sample) =>
    Effect.gen(function* () {
      const encoder = makeEncoder(spec, undefined, () => new ByteWriter())
      for (const row of sample) yield* encoder.write(row)
      yield* encoder.finish
      return parquetInputNotes(spec)
    })
})

export const parquetSink = parquetSinkWith()
