/**
 * Typed output columns. Every stage declares the columns it adds with a type; sinks write each
 * type natively (Parquet numbers as numbers, vectors as lists of FLOAT, JSON as a JSON string
 * column; CSV vectors and JSON as JSON text; JSONL native values). Every column is nullable: a
 * stage skipped for a record leaves its columns null.
 */
export type ColumnType =
  | { readonly _tag: "string" }
  | { readonly _tag: "number" }
  | { readonly _tag: "boolean" }
  | { readonly _tag: "json" }
  | { readonly _tag: "vector"; readonly dim: number }

export interface Column {
  readonly name: string
  readonly type: ColumnType
}

export const ColumnType = {
  string: { _tag: "string" } as ColumnType,
  number: { _tag: "number" } as ColumnType,
  boolean: { _tag: "boolean" } as ColumnType,
  json: { _tag: "json" } as ColumnType,
  vector: (dim: number): ColumnType => ({ _tag: "vector", dim })
} as const

export const column = (name: string, type: ColumnType): Column => ({ name, type })

/** `string`, `vector(1536)`: how a type is named in errors and docs. */
export const showColumnType = (t: ColumnType): string => (t._tag === "vector" ? `vector(${t.dim})` : t._tag)
