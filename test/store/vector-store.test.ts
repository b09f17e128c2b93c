/** Which column feeds the store, checked before anything runs. */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { column, ColumnType } from "../../src/pipeline/columns.ts"
import { StoreSettings, storeVectorColumn } from "../../src/store/vector-store.ts"

const settings = (extra: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(StoreSettings)({ path: "v.sqlite", ...extra })
const v = (name: string) => column(name, ColumnType.vector(1536))

describe("storeVectorColumn", () => {
  it("takes the pipeline's one vector column", () => {
    expect(storeVectorColumn(settings(), [column("t", ColumnType.string), v("embedding")])).toEqual({
      column: "embedding",
      dim: 1536
    })
  })
  it("refuses a pipeline with no vector column", () => {
    expect(storeVectorColumn(settings(), [column("t", ColumnType.string)])).toBe(
      "store: the pipeline adds no vector column (add an embed stage)"
    )
  })
  it("asks which one when there are several, and names a missing one", () => {
    expect(storeVectorColumn(settings(), [v("a"), v("b")])).toBe(
      "store.vector: the pipeline adds several vector columns (a, b); name one"
    )
    expect(storeVectorColumn(settings({ vector: "c" }), [v("a"), v("b")])).toBe(
      'store.vector: no stage adds a vector column "c" (vector columns: a, b)'
    )
    expect(storeVectorColumn(settings({ vector: "b" }), [v("a"), v("b")])).toEqual({ column: "b", dim: 1536 })
  })
  it("refuses a table name that is not a plain identifier", () => {
    expect(() => settings({ table: "docs; DROP TABLE x" })).toThrow(/a table name: letters, digits and _/)
  })
})
