/** JSON Lines: one object per line with native values (vectors as arrays, JSON as objects). */
import { Effect, type Scope } from "effect"
import { atomicTextFile } from "../atomic-file.ts"
import { addedColumns, type SinkAdapter, type SinkError } from "../sink.ts"

export interface JsonlFile {
  readonly write: (value: unknown) => Effect.Effect<void, SinkError>
  /** Text already made of JSON lines. */
  readonly text: (lines: string) => Effect.Effect<void, SinkError>
  readonly commit: Effect.Effect<void, SinkError>
}

/** A JSON Lines file, atomic (the rejects file is one too). */
export const jsonlFile = (path: string): Effect.Effect<JsonlFile, SinkError, Scope.Scope> =>
  Effect.map(atomicTextFile(path), (file) => ({
    write: (value) => file.write(`${JSON.stringify(value)}\n`),
    text: file.write,
    commit: file.commit
  }))

export const jsonlSink: SinkAdapter = {
  name: "jsonl",
  extensions: [".jsonl", ".ndjson"],
  needs: "nothing",
  open: (spec) =>
    Effect.map(jsonlFile(spec.path), (file) => {
      const added = addedColumns(spec).map((c) => c.name)
      // Input fields as given, then every output column (null when absent). A row that has them
      // all (every row the engine assembles) is written as it is, not copied first.
      const line = (row: Readonly<Record<string, unknown>>) => {
        let out: Record<string, unknown> | undefined
        for (const c of added) {
          const v = row[c]
          if (v === undefined) (out ??= { ...row })[c] = null
          // A vector read back from the ledger (Float32Array) is written as the array it stands for.
          else if (v instanceof Float32Array) (out ??= { ...row })[c] = Array.from(v)
        }
        return `${JSON.stringify(out ?? row)}\n`
      }
      return {
        write: (row) => file.text(line(row)),
        writeRows: (rows) => file.text(rows.map(line).join("")),
        commit: file.commit
      }
    })
}
