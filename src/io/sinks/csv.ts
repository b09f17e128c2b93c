/**
 * CSV: a header (input columns, then output columns), a UTF-8 BOM (spreadsheets read UTF-8
 * then), quoted newlines; vectors and JSON as JSON text, booleans as true/false, null as an
 * empty field.
 */
import { stringify } from "csv-stringify/sync"
import { Effect } from "effect"
import { atomicTextFile } from "../atomic-file.ts"
import { addedColumns, type SinkAdapter } from "../sink.ts"

// Booleans as true/false (csv-stringify's default writes false as an empty field, like null).
const cell = (v: unknown): unknown =>
  v === undefined || v === null
    ? null
    : typeof v === "boolean"
      ? String(v)
      : typeof v === "object"
        ? // A vector read back from the ledger (Float32Array) is written as the array it stands for.
          JSON.stringify(v instanceof Float32Array ? Array.from(v) : v)
        : v

export const csvSink: SinkAdapter = {
  name: "csv",
  extensions: [".csv"],
  needs: "columns",
  open: (spec) =>
    Effect.gen(function* () {
      const file = yield* atomicTextFile(spec.path)
      const columns = [...spec.inputColumns, ...addedColumns(spec).map((c) => c.name)]
      yield* file.write(`\uFEFF${stringify([columns])}`)
      return {
        write: (row) => file.write(stringify([columns.map((c) => cell(row[c]))])),
        writeRows: (rows) => file.write(stringify(rows.map((row) => columns.map((c) => cell(row[c]))))),
        commit: file.commit
      }
    })
}
