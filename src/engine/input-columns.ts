/**
 * Before any request: every column the job reads from the input is there. Where the input declares
 * its columns (a CSV header, a Parquet schema), a missing one — a typo in the job, a renamed
 * export — is one error naming it and listing what the input has, instead of every record failing
 * one by one. JSON Lines declares no columns: a `when` column is looked for in the keys of its
 * first records (a sample), since a typo there would not fail anything, only disable the stage
 * (the column is null on every record). A stage field a JSONL record lacks fails that record alone,
 * as before: that is loud already.
 */
import { Data, Effect, Stream } from "effect"
import { sourceColumns } from "../io/input-access.ts"
import type { Source } from "../io/source.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { thousands } from "./thousands.ts"
import { ExitCode } from "../exit-code.ts"

/** Records of a JSONL input whose keys stand for its columns. */
export const JSONL_SAMPLE = 1000

export class MissingColumns extends Data.TaggedError("MissingColumns")<{
  readonly path: string
  readonly missing: ReadonlyArray<{ readonly column: string; readonly by: string }>
  readonly available: ReadonlyArray<string>
  /** Columns the stages before the one reading a missing column add (also known, not from the input). */
  readonly added?: ReadonlyArray<string>
  /** The input declares no columns: `available` are the keys of its first `sampled` records. */
  readonly sampled?: number
}> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    const what = this.missing.map((m) => `${JSON.stringify(m.column)} (${m.by})`).join(", ")
    const have =
      this.sampled === undefined
        ? "the input's columns are"
        : `the keys of the input's first ${thousands(this.sampled)} records are`
    const added =
      this.added !== undefined && this.added.length > 0 ? `; earlier stages add: ${this.added.join(", ")}` : ""
    return `${this.path}: no column ${what}; ${have}: ${this.available.join(", ")}${added}`
  }
}

interface ColumnRead {
  readonly column: string
  readonly by: string
  /** The stage reading it (0-based); -1 for `input.id`. */
  readonly stage: number
  readonly when: boolean
}

const columnsRead = (pipeline: Pipeline, idField: string | undefined): ReadonlyArray<ColumnRead> => {
  const added = new Set(pipeline.columns.map((c) => c.name))
  const out = new Map<string, ColumnRead>()
  if (idField !== undefined) out.set(idField, { column: idField, by: "the job's input.id", stage: -1, when: false })
  pipeline.stages.forEach((stage, i) => {
    // makePipeline refuses a column a later stage adds: an added column here is an earlier stage's.
    for (const c of stage.reads)
      if (!added.has(c) && !out.has(c))
        out.set(c, { column: c, by: `read by stage ${i + 1}, ${stage.name}`, stage: i, when: false })
    for (const c of stage.when?.columns ?? [])
      if (!added.has(c) && !out.has(c))
        out.set(c, { column: c, by: `tested by stage ${i + 1}'s when`, stage: i, when: true })
  })
  return [...out.values()]
}

/** Input columns the pipeline reads (stage fields and `when` tests not added by a stage), with who reads them. */
export const inputColumnsRead = (
  pipeline: Pipeline,
  idField: string | undefined
): ReadonlyArray<{ readonly column: string; readonly by: string }> =>
  columnsRead(pipeline, idField).map(({ column, by }) => ({ column, by }))

/** Columns added by the stages before the last one among `missing`. */
const addedBefore = (pipeline: Pipeline, missing: ReadonlyArray<ColumnRead>) => {
  const last = Math.max(...missing.map((m) => m.stage))
  return pipeline.stages.slice(0, Math.max(0, last)).flatMap((s) => s.columns.map((c) => c.name))
}

const refusal = (
  pipeline: Pipeline,
  path: string,
  missing: ReadonlyArray<ColumnRead>,
  available: ReadonlyArray<string>,
  sampled?: number
) =>
  new MissingColumns({
    path,
    missing: missing.map(({ column, by }) => ({ column, by })),
    available,
    added: addedBefore(pipeline, missing),
    ...(sampled !== undefined ? { sampled } : {})
  })

/** The columns read that the declared ones lack; none when the input declares no columns. */
export const missingColumns = (
  pipeline: Pipeline,
  idField: string | undefined,
  path: string,
  declared: ReadonlyArray<string> | undefined
) => {
  if (declared === undefined) return undefined
  const have = new Set(declared)
  const missing = columnsRead(pipeline, idField).filter((c) => !have.has(c.column))
  return missing.length === 0 ? undefined : refusal(pipeline, path, missing, declared)
}

/**
 * The one check of the input's columns (`run`, `plan`, `run --dry-run`, `check`): the declared
 * columns, or for an input that declares none, its `when` columns against the keys of its first
 * JSONL_SAMPLE records. An input with no record yet is not refused: no stage would run anyway.
 */
export const checkInputColumns = (pipeline: Pipeline, idField: string | undefined, source: Source) =>
  Effect.gen(function* () {
    const declared = yield* sourceColumns(source)
    if (declared !== undefined) {
      const missing = missingColumns(pipeline, idField, source.path, declared)
      return missing === undefined ? undefined : yield* missing
    }
    const tested = columnsRead(pipeline, idField).filter((c) => c.when)
    if (tested.length === 0) return undefined
    const keys = new Set<string>()
    let records = 0
    yield* source.items().pipe(
      Stream.take(JSONL_SAMPLE),
      Stream.runForEach((item) =>
        Effect.sync(() => {
          if (item._tag !== "Record") return
          records++
          for (const k in item.fields) keys.add(k)
        })
      )
    )
    const missing = tested.filter((c) => !keys.has(c.column))
    if (records === 0 || missing.length === 0) return undefined
    return yield* refusal(pipeline, source.path, missing, [...keys], records)
  })
