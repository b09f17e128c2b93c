/**
 * The output pass: the source read again, each record joined with its outcome in the ledger, in
 * input order, into the sink (the enriched dataset) and the rejects file. Every input row ends in
 * exactly one of the two. Both are written atomically: nothing appears unless all of it does.
 */
import { Data, Effect, Option, type Scope, Stream } from "effect"
import { Ledger, type LedgerService } from "../ledger/ledger.ts"
import { outcomeReader } from "./outcome-reader.ts"
import { isAnswerRef, type FailureInfo } from "../ledger/stored.ts"
import type { RowSink, SinkError } from "../io/sink.ts"
import type { SourceRecord } from "../io/source.ts"
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
      const outcomeOf = outcomeReader(ledger, runId)
      let sink: RowSink | undefined
      // The sink opens at the first record: JSONL input declares no columns, its first record does.
      const openSink = (first: Row): Effect.Effect<RowSink, SinkError, Scope.Scope> =>
        sink !== undefined
          ? Effect.succeed(sink)
          : Effect.tap(adapter.open({ path: outputPath, inputColumns: declared ?? Object.keys(first), outputColumns }), (s) => void (sink = s))

      const writeDone = (item: SourceRecord, rows: ReadonlyArray<Row>) =>
        Effect.flatMap(openSink(item.fields), (out) =>
          vectors.length === 0 && rows.length === 1
            ? out.write({ ...item.fields, ...rows[0] })
            : Effect.forEach(rows, (row) => Effect.flatMap(resolveRefs(ledger, vectors, row, outputPath), (resolved) => out.write({ ...item.fields, ...resolved })), {
                discard: true
              })
        )

      // Pipes, not generators: this runs once per input row.
      yield* settings.source.items().pipe(
        Stream.runForEach((item) => {
          if (item._tag === "Reject") {
            return rejects.write({ ordinal: item.ordinal, line: item.line, stage: "read", status: "unreadable", reason: item.reason, raw: item.raw })
          }
          return Effect.flatMap(outcomeOf(item.ordinal), (stored) => {
            if (Option.isSome(stored) && stored.value.outcome._tag === "Done") return writeDone(item, stored.value.outcome.output.rows)
            const info = Option.isSome(stored) && stored.value.outcome._tag === "Failed" ? stored.value.outcome.error : notProcessed
            const key = Option.isSome(stored) ? stored.value.key : undefined
            return rejects.write({ ordinal: item.ordinal, line: item.line, key, stage: info.stage, status: info.status, reason: info.message, attempts: info.attempts })
          })
        })
      )
      const out = yield* openSink({})
      yield* out.commit
      yield* rejects.commit
    })
  )
