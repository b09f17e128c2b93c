/**
 * Before any request: every column the job reads from the input is there. Where the input declares
 * its columns (a CSV header, a Parquet schema), a missing one — a typo in the job, a renamed
 * export — is one error naming it and listing what the input has, instead of every record failing
 * one by one. JSON Lines declares no columns: a record without a field fails alone, as before.
 */
import { Data } from "effect"
import type { Pipeline } from "./stage.ts"

export class MissingColumns extends Data.TaggedError("MissingColumns")<{
  readonly path: string
  readonly missing: ReadonlyArray<{ readonly column: string; readonly by: string }>
  readonly available: ReadonlyArray<string>
}> {
  override get message() {
    const what = this.missing.map((m) => `${JSON.stringify(m.column)} (${m.by})`).join(", ")
    return `${this.path}: no column ${what}; the input's columns are: ${this.available.join(", ")}`
  }
}

/** Input columns the pipeline reads (stage fields and `when` tests not added by a stage), with who reads them. */
export const inputColumnsRead = (pipeline: Pipeline, idField: string | undefined): ReadonlyArray<{ readonly column: string; readonly by: string }> => {
  const added = new Set(pipeline.columns.map((c) => c.name))
  const out = new Map<string, string>()
  if (idField !== undefined) out.set(idField, "the job's input.id")
  pipeline.stages.forEach((stage, i) => {
    const label = `read by stage ${i + 1}, ${stage.name}`
    for (const c of stage.reads) if (!added.has(c) && !out.has(c)) out.set(c, label)
    for (const c of stage.when?.columns ?? []) if (!added.has(c) && !out.has(c)) out.set(c, `tested by stage ${i + 1}'s when`)
  })
  return [...out].map(([column, by]) => ({ column, by }))
}

/** The columns read that the declared ones lack; none when the input declares no columns. */
export const missingColumns = (pipeline: Pipeline, idField: string | undefined, path: string, declared: ReadonlyArray<string> | undefined) => {
  if (declared === undefined) return undefined
  const have = new Set(declared)
  const missing = inputColumnsRead(pipeline, idField).filter((c) => !have.has(c.column))
  return missing.length === 0 ? undefined : new MissingColumns({ path, missing, available: declared })
}
