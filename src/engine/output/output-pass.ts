/**
 * The output pass: the source read again, a chunk at a time, each chunk's outcomes read in one
 * effect beside it (the run's records in ordinal order), into the output writer. A run's output
 * is written so when it cannot be written as records finish (inline-output.ts), or when that gave up.
 */
import { Chunk, Effect, Stream } from "effect"
import { sourceColumns, sourceTypes } from "../../io/input-access.ts"
import type { SinkError } from "../../io/sink.ts"
import type { Source, SourceError } from "../../io/source.ts"
import { Ledger } from "../../ledger/ledger.ts"
import type { StoreBusy } from "../../store/store-lock.ts"
import type { StoreOwned } from "../../store/store-owner.ts"
import type { InputChanged, InputGuard } from "./input-guard.ts"
import { outcomesReader } from "./outcome-reader.ts"
import type { OutputError } from "./output-error.ts"
import { openOutputWriter, type OutputResult, type OutputSettings } from "./output-writer.ts"

/** What the output pass reads of a run's settings: the writer's, and the source to read again. */
export interface OutputPassSettings extends OutputSettings {
  readonly source: Source
}

export const writeOutputs = (
  settings: OutputPassSettings,
  runId: number,
  guard?: InputGuard
): Effect.Effect<OutputResult, OutputError | SinkError | SourceError | InputChanged | StoreOwned | StoreBusy, Ledger> =>
  Effect.scoped(
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const columns = {
        declared: yield* sourceColumns(settings.source),
        inputTypes: yield* sourceTypes(settings.source)
      }
      const writer = yield* openOutputWriter(settings, columns, guard)
      const outcomesOf = outcomesReader(ledger, runId)
      yield* settings.source.items().pipe(
        Stream.runForEachChunk((chunk) => {
          const items = Chunk.toReadonlyArray(chunk)
          const ordinals: Array<number> = []
          for (const item of items) if (item._tag === "Record") ordinals.push(item.ordinal)
          return Effect.flatMap(outcomesOf(ordinals), (outcomes) => writer.write(items, outcomes))
        })
      )
      return yield* writer.commit
    })
  )
