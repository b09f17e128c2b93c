/**
 * Before any request: the output can be written with the input's types (the sink's check over the
 * input's first rows). Sinks that cannot fail on input values have no check.
 */
import { Effect, Option, Stream } from "effect"
import { sourceColumns, sourceTypes } from "../../io/input-access.ts"
import type { SinkError } from "../../io/sink.ts"
import { sinkFor } from "../../io/sinks/index.ts"
import type { Source, SourceError } from "../../io/source.ts"
import type { Pipeline } from "../../pipeline/stage.ts"
import { OutputError } from "./output-error.ts"

/** What the check reads of a run's settings. */
export interface OutputCheckSettings {
  readonly source: Source
  readonly output: { readonly path: string; readonly format: string }
  readonly pipeline: Pipeline
}

/** Rows of the input's start the output check encodes. */
const CHECK_ROWS = 200

export const checkOutput = (
  settings: OutputCheckSettings
): Effect.Effect<void, OutputError | SinkError | SourceError> =>
  Effect.gen(function* () {
    const adapter = sinkFor(settings.output.format)
    if (adapter === undefined)
      return yield* new OutputError({ path: settings.output.path, detail: `no sink named ${settings.output.format}` })
    if (adapter.check === undefined) return
    const inputTypes = yield* sourceTypes(settings.source)
    // Types known only from the whole input (CSV, JSONL) fit every value by construction.
    if (inputTypes === undefined) return
    const declared = yield* sourceColumns(settings.source)
    const sample = yield* settings.source.items().pipe(
      Stream.filterMap((item) => (item._tag === "Record" ? Option.some(item.fields) : Option.none())),
      Stream.take(CHECK_ROWS),
      Stream.runCollect
    )
    const rows = [...sample]
    const notes = yield* adapter.check(
      {
        path: settings.output.path,
        inputColumns: declared ?? Object.keys(rows[0] ?? {}),
        outputColumns: settings.pipeline.columns,
        inputTypes
      },
      rows
    )
    for (const note of notes) yield* Effect.logWarning(`${settings.output.path}: ${note}`)
  })
