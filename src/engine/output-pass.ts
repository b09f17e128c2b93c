/**
 * The output pass: the source read again, each record joined with its outcome in the ledger, in
 * input order, into the sink (the enriched dataset) and the rejects file. Every input row ends in
 * exactly one of the two. Both are written atomically: nothing appears unless all of it does.
 */
import { Data, Effect, Option, Stream } from "effect"
import { Ledger, type LedgerService } from "../ledger/ledger.ts"
import { isAnswerRef, type FailureInfo } from "../ledger/stored.ts"
import type { RowSink } from "../io/sink.ts"
import { sinkFor } from "../io/sinks/index.ts"
import { jsonlFile } from "../io/sinks/jsonl.ts"
import type { Column } from "../io/columns.ts"
import type { RunSettings } from "./runner.ts"
import type { Row } from "./stage.ts"

export class OutputError extends Data.TaggedError("OutputError")<{ readonly path: string; readonly detail: string }> {
  override get message() {
    return `cannot write ${this.path}: ${this.detail}`
  }
}

const notProcessed: FailureInfo = { stage: "-", status: "not processed", message: "no outcome recorded", attempts: 0 }

/** Replaces references to stored answers by the values they stand for. */
const resolveRefs = (ledger: LedgerService, vectors: ReadonlyArray<Column>, row: Row, path: string) =>
  Effect.gen(function* () {
    let out: Record<string, unknown> | undefined
    for (const c of vectors) {
      const value = row[c.name]
      if (!isAnswerRef(value)) continue
      const stored = yield* ledger.answerJson(value.$answer)
      if (Option.isNone(stored)) {
        return yield* new OutputError({ path, detail: `column ${c.name}: the answer ${value.$answer} a record refers to is not in the ledger` })
      }
      const answer = stored.value
      out ??= { ...row }
      out[c.name] = value.$path === undefined ? answer : (answer as Record<string, unknown> | null)?.[value.$path] ?? null
    }
    return out ?? row
  })

export const writeOutputs = (settings: RunSettings, runId: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const outputPath = settings.output.path
      const adapter = sinkFor(settings.output.format)
      if (adapter === undefined) return yield* new OutputError({ path: outputPath, detail: `no sink named ${settings.output.format}` })
      const outputColumns = settings.pipeline.columns
      const vectors = outputColumns.filter((c) => c.type._tag === "vector")
      const declared = yield* Effect.promise(() => settings.source.columns())
      const rejects = yield* jsonlFile(settings.rejectsPath)
      let sink: RowSink | undefined
      // The sink opens at the first record: JSONL input declares no columns, its first record does.
      const sinkFor_ = (first: Row) =>
        Effect.gen(function* () {
          sink ??= yield* adapter.open({ path: outputPath, inputColumns: declared ?? Object.keys(first), outputColumns })
          return sink
        })

      yield* settings.source.items().pipe(
        Stream.runForEach((item) =>
          Effect.gen(function* () {
            if (item._tag === "Reject") {
              return yield* rejects.write({ ordinal: item.ordinal, line: item.line, stage: "read", status: "unreadable", reason: item.reason, raw: item.raw })
            }
            const stored = yield* ledger.record(runId, item.ordinal)
            if (Option.isSome(stored) && stored.value.outcome._tag === "Done") {
              const out = yield* sinkFor_(item.fields)
              for (const row of stored.value.outcome.output.rows) {
                const resolved = vectors.length > 0 ? yield* resolveRefs(ledger, vectors, row, outputPath) : row
                yield* out.write({ ...item.fields, ...resolved })
              }
              return
            }
            const info = Option.isSome(stored) && stored.value.outcome._tag === "Failed" ? stored.value.outcome.error : notProcessed
            const key = Option.isSome(stored) ? stored.value.key : undefined
            yield* rejects.write({ ordinal: item.ordinal, line: item.line, key, stage: info.stage, status: info.status, reason: info.message, attempts: info.attempts })
          })
        )
      )
      const out = yield* sinkFor_({})
      yield* out.commit
      yield* rejects.commit
    })
  )
