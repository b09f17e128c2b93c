/**
 * What is known of the input's column types, for a sink that writes typed columns (Parquet):
 * - a Parquet input's own schema (exact: a BIGINT stays INT64, a DATE a DATE, a LIST a LIST);
 * - for CSV and JSONL, the kinds of value met in every record of the processing pass, so the
 *   type chosen fits every value by construction (never decided from the first rows alone, which
 *   failed the write after every request was paid when a later value did not fit).
 */
import type { SchemaElement } from "hyparquet"

/** The kind of a non-null value, as far as a column type goes. */
export type ValueKind = "boolean" | "int32" | "int64" | "number" | "string" | "other"

export type InputTypes =
  /** The input's Parquet schema, flat (pre-order, `num_children`), its root element left out. */
  | { readonly _tag: "Parquet"; readonly schema: ReadonlyArray<SchemaElement> }
  /** Per column, the kinds of non-null value met in the whole input. */
  | { readonly _tag: "Observed"; readonly kinds: ReadonlyMap<string, ReadonlySet<ValueKind>> }

const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

export const kindOf = (v: unknown): ValueKind | undefined => {
  switch (typeof v) {
    case "string":
      return "string"
    case "boolean":
      return "boolean"
    case "number":
      return Number.isSafeInteger(v) ? (v >= INT32_MIN && v <= INT32_MAX ? "int32" : "int64") : "number"
    case "bigint":
      return "int64"
    case "undefined":
      return undefined
    default:
      return v === null ? undefined : "other"
  }
}

/** Collects the kinds of value of every column over the records it is shown. */
export const makeKindObserver = () => {
  const kinds = new Map<string, Set<ValueKind>>()
  return {
    observe: (fields: Readonly<Record<string, unknown>>) => {
      for (const k in fields) {
        const kind = kindOf(fields[k])
        let set = kinds.get(k)
        if (set === undefined) kinds.set(k, (set = new Set()))
        if (kind !== undefined) set.add(kind)
      }
    },
    types: (): InputTypes => ({ _tag: "Observed", kinds })
  }
}
