/**
 * The output writer: each input row joined with its outcome, in input order, fanned out to the
 * sink (the enriched dataset), the rejects file, the vector store and the row tallies; every input
 * row ends in exactly one of the first two. Nothing appears at the destinations until `commit`
 * (the store excepted: its batches are committed as they fill, each record either as before or
 * as now). Fed during the processing pass as records finish (inline-output.ts) or by the output
 * pass, a second read of the input (output-pass.ts).
 */
import { Effect, Option, type Scope } from "effect"
import type { InputTypes } from "../../io/input-types.ts"
import type { RowSink, SinkError } from "../../io/sink.ts"
import { sinkFor } from "../../io/sinks/index.ts"
import { jsonlFile } from "../../io/sinks/jsonl.ts"
import type { SourceItem, SourceRecord } from "../../io/source.ts"
import { Ledger, type LedgerService, type StoredRecord } from "../../ledger/ledger.ts"
import { isAnswerRef, type FailureInfo, type RecordOutput } from "../../ledger/stored.ts"
import type { Column } from "../../pipeline/columns.ts"
import { mergeRow } from "../../pipeline/merge-row.ts"
import type { Pipeline, Row } from "../../pipeline/stage.ts"
import type { StoreBusy } from "../../store/store-lock.ts"
import type { StoreOwned } from "../../store/store-owner.ts"
import type { StoreChanges, StoreSettings } from "../../store/vector-store.ts"
import type { InputChanged, InputGuard } from "./input-guard.ts"
import { OutputError } from "./output-error.ts"
import type { RowTallies, RowTally } from "./row-tally.ts"
import { makeOutcomeDigest } from "./outcome-digest.ts"
import { openStoreOutput } from "./store-output.ts"

/** What the writer reads of a run's settings. */
export interface OutputSettings {
  readonly job: string
  /** The enriched dataset: a path and the name of a sink adapter (csv, jsonl, parquet, …). */
  readonly output: { readonly path: string; readonly format: string }
  readonly rejectsPath: string
  readonly pipeline: Pipeline
  /** A vector store kept in step with the source by record key. */
  readonly store?: StoreSettings | undefined
  /** The job's id column: only then can two records share a key (generated keys are unique). */
  readonly idField?: string | undefined
  /** Consumers of the output's rows (the report's tally, a column's count). */
  readonly tallies?: RowTallies | undefined
}

export interface OutputResult {
  readonly store?: StoreChanges
  readonly notProcessed: number
  /** Records rejected because an earlier record had their id (with a store only). */
  readonly duplicateRejects: number
  /** Digest of the outcomes written, in input order (outcome-digest.ts). */
  readonly outcomes?: string
  /** The previous output kept as it was, not written again (unchanged-output.ts): the run that wrote it. */
  readonly kept?: number
  /** The store writer's pass (its mark on every record it saw). */
  readonly storePass?: string
}

/** Items of the source in input order with, for each record among them, its outcome (undefined: none). */
export type OutputStep = (
  items: ReadonlyArray<SourceItem>,
  outcomes: ReadonlyArray<StoredRecord | undefined>
) => Effect.Effect<void, OutputError | SinkError | InputChanged, Scope.Scope>

export interface OutputWriter {
  /** Writes items that follow the ones written before; `outcomes` holds one entry per record item. */
  readonly write: OutputStep
  /** Checks the input is unchanged (with a guard), then moves the output, rejects and store changes into place. */
  readonly commit: Effect.Effect<OutputResult, OutputError | SinkError | InputChanged, Scope.Scope>
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
        return yield* new OutputError({
          path,
          detail: `column ${c.name}: the answer ${value.$answer} a record refers to is not in the ledger`
        })
      }
      const answer = stored.value
      out ??= { ...row }
      out[c.name] =
        value.$path === undefined ? answer : ((answer as Record<string, unknown> | null)?.[value.$path] ?? null)
    }
    return out ?? row
  })

/**
 * Opens the writer's destinations. `guard`, when given, is checked before anything is committed
 * (an input changed meanwhile fails) and between store batches. `waitForStore`: wait for another
 * process writing the store; else a busy store fails at once (StoreBusy).
 */
export const openOutputWriter = (
  settings: OutputSettings,
  /** The input's columns when the source does not declare them (JSONL): every key met while reading. */
  columns: { readonly declared: ReadonlyArray<string> | undefined; readonly inputTypes: InputTypes | undefined },
  guard?: InputGuard,
  waitForStore = true
): Effect.Effect<OutputWriter, OutputError | SinkError | StoreOwned | StoreBusy, Ledger | Scope.Scope> =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const outputPath = settings.output.path
    const adapter = sinkFor(settings.output.format)
    if (adapter === undefined)
      return yield* new OutputError({ path: outputPath, detail: `no sink named ${settings.output.format}` })
    const outputColumns = settings.pipeline.columns
    const vectors = outputColumns.filter((c) => c.type._tag === "vector")
    const { declared, inputTypes } = columns
    const rejects = yield* jsonlFile(settings.rejectsPath)
    const store =
      settings.store === undefined
        ? undefined
        : yield* openStoreOutput(settings.job, settings.store, outputColumns, guard, waitForStore)
    // Ids repeat only when the job names an id column; the store keeps one record per id.
    const claimIds = store !== undefined && settings.idField !== undefined ? store : undefined
    // Fresh for this writer: one given up (an inline output) leaves nothing tallied.
    const tallies: ReadonlyArray<RowTally> = (settings.tallies ?? []).map((make) => make())
    const digest = makeOutcomeDigest()
    let sink: RowSink | undefined
    // The sink opens at the first record: JSONL input declares no columns, its first record does.
    // Suspended: a chunk's steps are all made before the first runs.
    const openSink = (first: Row): Effect.Effect<RowSink, SinkError, Scope.Scope> =>
      Effect.suspend(() =>
        sink !== undefined
          ? Effect.succeed(sink)
          : Effect.tap(
              adapter.open({
                path: outputPath,
                inputColumns: declared ?? Object.keys(first),
                outputColumns,
                inputTypes
              }),
              (s) => void (sink = s)
            )
      )

    const writeDone = (item: SourceRecord, recordKey: string, output: RecordOutput) => {
      const rows = output.rows
      return Effect.flatMap(openSink(item.fields), (out) =>
        vectors.length === 0 && rows.length === 1
          ? out.write(mergeRow(item.fields, rows[0]!))
          : Effect.forEach(rows, (row) =>
              Effect.tap(resolveRefs(ledger, vectors, row, outputPath), (resolved) =>
                out.write(mergeRow(item.fields, resolved))
              )
            ).pipe(
              Effect.flatMap((resolved) =>
                store === undefined ? Effect.void : store.put(recordKey, output, resolved, item.fields)
              )
            )
      )
    }

    // Rows with no outcome in a finished run (should not happen; counted so the exit code says so).
    let notProcessedRows = 0
    let duplicateRejects = 0
    const rejectOf = (item: SourceRecord, stored: Option.Option<StoredRecord>) => {
      if (Option.isNone(stored)) notProcessedRows++
      const info =
        Option.isSome(stored) && stored.value.outcome._tag === "Failed" ? stored.value.outcome.error : notProcessed
      const key = Option.isSome(stored) ? stored.value.key : undefined
      return rejects.write({
        ordinal: item.ordinal,
        line: item.line,
        key,
        stage: info.stage,
        status: info.status,
        reason: info.message,
        attempts: info.attempts
      })
    }
    /** A record whose id an earlier record had: the store keeps that first one's vectors. */
    const rejectRepeated = (item: SourceRecord, key: string, first: number) => {
      duplicateRejects++
      return rejects.write({
        ordinal: item.ordinal,
        line: item.line,
        key,
        stage: "store",
        status: "duplicate id",
        reason: `duplicate id ${key} (first at line ${first}): the store keeps the first record with an id`,
        attempts: 0
      })
    }

    /** A record with an outcome, to the sink, the store or the rejects file. */
    const writeStored = (item: SourceRecord, stored: StoredRecord) => {
      if (stored.outcome._tag === "Done") return writeDone(item, stored.key, stored.outcome.output)
      // A record that failed this run is still in the source: its vectors stay.
      if (store !== undefined) return Effect.zipRight(store.keep(stored.key), rejectOf(item, Option.some(stored)))
      return rejectOf(item, Option.some(stored))
    }
    /** One input row, joined with its outcome (or its absence). */
    const writeItem = (item: SourceRecord, stored: StoredRecord | undefined) => {
      if (stored === undefined) return rejectOf(item, Option.none())
      if (claimIds === undefined) return writeStored(item, stored)
      return Effect.flatMap(claimIds.claim(stored.key, item.line), (first) =>
        first === undefined ? writeStored(item, stored) : rejectRepeated(item, stored.key, first)
      )
    }
    /** Rows that need nothing but the sink (one row, no vectors), written together. */
    const writePlain = (first: Row, rows: ReadonlyArray<Row>) =>
      Effect.flatMap(openSink(first), (out) =>
        out.writeRows !== undefined ? out.writeRows(rows) : Effect.forEach(rows, out.write, { discard: true })
      )
    // A store has a vector column: no row of a run with one is plain.
    const plainRow = (item: SourceRecord, stored: StoredRecord | undefined): Row | undefined =>
      stored === undefined ||
      stored.outcome._tag !== "Done" ||
      vectors.length > 0 ||
      stored.outcome.output.rows.length !== 1
        ? undefined
        : mergeRow(item.fields, stored.outcome.output.rows[0]!)

    // Plain rows written in one effect; only rows that need more (rejects, vectors, the store) get an effect each.
    const write: OutputStep = (items, outcomes) => {
      const steps: Array<Effect.Effect<void, OutputError | SinkError | InputChanged, Scope.Scope>> = []
      let plain: Array<Row> = []
      let first: Row | undefined
      const flushPlain = () => {
        if (plain.length > 0) steps.push(writePlain(first!, plain))
        plain = []
      }
      let next = 0
      for (const item of items) {
        if (item._tag === "Reject") {
          steps.push(
            rejects.write({
              ordinal: item.ordinal,
              line: item.line,
              stage: "read",
              status: "unreadable",
              reason: item.reason,
              raw: item.raw
            })
          )
          continue
        }
        const stored = outcomes[next++]
        digest.add(item.ordinal, stored)
        if (stored !== undefined) for (const t of tallies) t.add(item.fields, stored)
        const row = plainRow(item, stored)
        if (row !== undefined) {
          first ??= item.fields
          plain.push(row)
          continue
        }
        flushPlain()
        steps.push(writeItem(item, stored))
      }
      flushPlain()
      return steps.length === 1 ? steps[0]! : Effect.forEach(steps, (step) => step, { discard: true })
    }

    const commit = Effect.gen(function* () {
      // Nothing is committed unless the input is still, byte for byte, the file the run processed.
      if (guard !== undefined) yield* guard.verify
      // The store first: one that cannot take its last batch (disk full) fails the run before the
      // output and rejects replace the previous ones.
      const storeChanges = store === undefined ? undefined : yield* store.commit
      const out = yield* openSink({})
      yield* out.commit
      yield* rejects.commit
      for (const t of tallies) t.commit()
      return {
        notProcessed: notProcessedRows,
        duplicateRejects,
        outcomes: digest.digest(),
        ...(storeChanges !== undefined ? { store: storeChanges, storePass: store!.pass } : {})
      }
    })
    return { write, commit }
  })
