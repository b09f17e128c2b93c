/**
 * The output writer and the output pass. The writer joins each input row with its outcome, in
 * input order, into the sink (the enriched dataset) and the rejects file; every input row ends in
 * exactly one of the two. Both are written atomically: nothing appears unless all of it does. The
 * output pass feeds the writer from the source read again beside the ledger's outcomes; a run
 * whose sink can open before the input's end feeds it as records finish (inline-output.ts).
 */
import { Chunk, Data, Effect, Option, type Scope, Stream } from "effect"
import { Ledger, type LedgerService, type StoredRecord } from "../../ledger/ledger.ts"
import { outcomesReader } from "./outcome-reader.ts"
import { isAnswerRef, type FailureInfo, type RecordOutput } from "../../ledger/stored.ts"
import type { RowSink, SinkError } from "../../io/sink.ts"
import type { SourceError, SourceItem, SourceRecord } from "../../io/source.ts"
import { sinkFor, vectorStoreFor } from "../../io/sinks/index.ts"
import { jsonlFile } from "../../io/sinks/jsonl.ts"
import type { Column } from "../../pipeline/columns.ts"
import type { InputTypes } from "../../io/input-types.ts"
import type { RunSettings } from "../runner.ts"
import type { Row } from "../../pipeline/stage.ts"
import { createHash } from "node:crypto"
import { lockStore, type StoreBusy } from "../../store/store-lock.ts"
import { StoreOwned } from "../../store/store-owner.ts"
import { type StoreChanges, type StoreRow, type StoreSettings, storeVectorColumn } from "../../store/vector-store.ts"
import { InputChanged, type InputGuard } from "./input-guard.ts"
import { sourceColumns, sourceTypes } from "../../io/input-access.ts"
import type { RowTally } from "./row-tally.ts"
import { ExitCode } from "../../exit-code.ts"

export class OutputError extends Data.TaggedError("OutputError")<{ readonly path: string; readonly detail: string }> {
  /** Exit 9 when it ends a command: the previous output is kept; the run resumes once the cause is fixed. */
  get exitCode() {
    return ExitCode.outputNotWritten
  }
  override get message() {
    return `cannot write ${this.path}: ${this.detail}`
  }
}

/** Done records with this value in the counted column of their first row (null: absent or null). */
export interface ColumnCount {
  readonly value: string | null
  readonly n: number
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

/** The store's writer for this pass, closed with the pass's scope; the store's lock is held as long. */
const openStore = (
  job: string,
  settings: StoreSettings,
  columns: ReadonlyArray<Column>,
  guard: InputGuard | undefined
) =>
  Effect.gen(function* () {
    const target = storeVectorColumn(settings, columns)
    if (typeof target === "string") return yield* new OutputError({ path: settings.path, detail: target })
    const adapter = vectorStoreFor(settings.format)
    if (adapter === undefined)
      return yield* new OutputError({ path: settings.path, detail: `no vector store named ${settings.format}` })
    // Another process writing the same store file (another job's table, or this job with another ledger) goes first.
    yield* lockStore(settings.path)
    const writer = yield* Effect.acquireRelease(
      Effect.try({
        try: () => adapter.openWriter(settings, target.dim, { job, beforeCommit: guard?.quickCheck }),
        catch: (e) =>
          e instanceof StoreOwned ? e : new OutputError({ path: settings.path, detail: (e as Error).message })
      }),
      (w) => Effect.sync(() => w.close())
    )
    if (writer.claimed === "adopted") {
      yield* Effect.logInfo(
        `vector store ${settings.path}: table ${settings.table} had no owner recorded (written before owners were); job ${job} adopts it`
      )
    }
    return { writer, vector: target.column, settings }
  })

const text = (v: unknown): string | null =>
  v === null || v === undefined ? null : typeof v === "string" ? v : JSON.stringify(v)

/** A record's content as the store sees it: its answers, row count, text and metadata. */
const storeHash = (keys: ReadonlyArray<string>, rows: ReadonlyArray<Row>, fields: Row, settings: StoreSettings) =>
  createHash("sha1")
    .update(
      JSON.stringify([
        keys,
        rows.length,
        settings.text ?? null,
        settings.metadata,
        rows.map((r) => [
          settings.text ? text(r[settings.text] ?? fields[settings.text]) : null,
          settings.metadata.map((m) => text(r[m] ?? fields[m]))
        ])
      ])
    )
    .digest("base64url")

const storeRows = (
  rows: ReadonlyArray<Row>,
  fields: Row,
  vector: string,
  settings: StoreSettings
): ReadonlyArray<StoreRow> =>
  rows.flatMap((r) => {
    const v = r[vector]
    if (!Array.isArray(v)) return []
    return [
      {
        vector: v as ReadonlyArray<number>,
        text: settings.text === undefined ? null : text(r[settings.text] ?? fields[settings.text]),
        metadata: Object.fromEntries(settings.metadata.map((m) => [m, text(r[m] ?? fields[m]) ?? ""]))
      }
    ]
  })

/** Rows of the input's start the output check encodes. */
const CHECK_ROWS = 200

/**
 * Before any request: the output can be written with the input's types (the sink's check over the
 * input's first rows). Sinks that cannot fail on input values have no check.
 */
export const checkOutput = (
  settings: Pick<RunSettings, "source" | "output" | "pipeline">
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

export interface OutputResult {
  readonly store?: StoreChanges
  readonly notProcessed: number
  readonly duplicateRejects: number
  readonly columnCounts?: ReadonlyArray<ColumnCount>
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

/**
 * The sink, the rejects file and the store of a run, written in input order: each input row
 * joined with its outcome (or its absence). Nothing appears at the destinations until `commit`;
 * closing the scope first removes what was written. The output pass feeds it from a second read
 * of the source; a run whose output can be written as it goes feeds it during its processing pass.
 * `guard`, when given, is checked before anything is committed: an input changed meanwhile fails.
 */
export const openOutputWriter = (
  settings: Pick<RunSettings, "job" | "output" | "pipeline" | "rejectsPath" | "store" | "countColumn" | "tallies">,
  /** The input's columns when the source does not declare them (JSONL): every key met while reading. */
  columns: { readonly declared: ReadonlyArray<string> | undefined; readonly inputTypes: InputTypes | undefined },
  guard?: InputGuard,
  /** Keys more than one record has (ledger.duplicateKeys): a store keeps the first; the later ones are rejected. */
  duplicates: ReadonlyMap<string, { readonly first: number }> = new Map()
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
      settings.store === undefined ? undefined : yield* openStore(settings.job, settings.store, outputColumns, guard)
    const toStore = (write: () => void) =>
      Effect.try({
        try: write,
        catch: (e) =>
          e instanceof InputChanged ? e : new OutputError({ path: store!.settings.path, detail: (e as Error).message })
      })
    // Every done record passes here once, with its outcome: counted as the ledger's GROUP BY would.
    const countColumn = settings.countColumn
    const counted = new Map<string | null, number>()
    const count = (output: RecordOutput) => {
      const v = output.rows[0]?.[countColumn!]
      const value = v === undefined || v === null ? null : typeof v === "string" ? v : JSON.stringify(v)
      counted.set(value, (counted.get(value) ?? 0) + 1)
    }
    // Fresh for this writer: one given up (an inline output) leaves nothing counted.
    const tallies: ReadonlyArray<RowTally> = (settings.tallies ?? []).map((make) => make())
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
          ? out.write({ ...item.fields, ...rows[0] })
          : Effect.forEach(rows, (row) =>
              Effect.tap(resolveRefs(ledger, vectors, row, outputPath), (resolved) =>
                out.write({ ...item.fields, ...resolved })
              )
            ).pipe(
              Effect.flatMap((resolved) =>
                store === undefined
                  ? Effect.void
                  : toStore(() =>
                      store.writer.put(recordKey, storeHash(output.keys, rows, item.fields, store.settings), () =>
                        storeRows(resolved, item.fields, store.vector, store.settings)
                      )
                    )
              )
            )
      )
    }

    // Rows with no outcome in a finished run (should not happen; counted so the exit code says so).
    let notProcessedRows = 0
    let duplicateRejects = 0
    // The line of each duplicated key's first record (as many entries as duplicated keys, not records).
    const firstLines = new Map<string, number>()
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

    /** One input row, joined with its outcome (or its absence): to the sink, the store or the rejects file. */
    const writeItem = (item: SourceRecord, stored: Option.Option<StoredRecord>) => {
      const key = Option.isSome(stored) ? stored.value.key : undefined
      const duplicate = key === undefined ? undefined : duplicates.get(key)
      if (key !== undefined && duplicate !== undefined && duplicate.first === item.ordinal)
        firstLines.set(key, item.line)
      if (key !== undefined && duplicate !== undefined && duplicate.first !== item.ordinal && store !== undefined) {
        // The store is keyed by id: a later record with the same id would replace the first one's vectors.
        duplicateRejects++
        const first = firstLines.get(key)
        return rejects.write({
          ordinal: item.ordinal,
          line: item.line,
          key,
          stage: "store",
          status: "duplicate id",
          reason: `duplicate id ${key} (first at line ${first ?? "?"}): the store keeps the first record with an id`,
          attempts: 0
        })
      }
      if (Option.isSome(stored) && stored.value.outcome._tag === "Done")
        return writeDone(item, stored.value.key, stored.value.outcome.output)
      // A record that failed this run is still in the source: its vectors stay.
      if (store !== undefined && Option.isSome(stored)) {
        const key = stored.value.key
        return Effect.zipRight(
          toStore(() => store.writer.keep(key)),
          rejectOf(item, Option.some(stored.value))
        )
      }
      return rejectOf(item, stored)
    }
    /** Rows that need nothing but the sink (one row, no vectors), written together. */
    const writePlain = (first: Row, rows: ReadonlyArray<Row>) =>
      Effect.flatMap(openSink(first), (out) =>
        out.writeRows !== undefined ? out.writeRows(rows) : Effect.forEach(rows, out.write, { discard: true })
      )
    const plainRow = (item: SourceRecord, stored: StoredRecord | undefined): Row | undefined => {
      if (
        stored === undefined ||
        stored.outcome._tag !== "Done" ||
        vectors.length > 0 ||
        stored.outcome.output.rows.length !== 1
      )
        return undefined
      if (duplicates.size > 0 && duplicates.has(stored.key)) return undefined
      return { ...item.fields, ...stored.outcome.output.rows[0] }
    }

    // Plain rows written in one effect; only rows that need more (rejects, vectors, the store,
    // duplicates) get an effect each.
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
        if (countColumn !== undefined && stored !== undefined && stored.outcome._tag === "Done")
          count(stored.outcome.output)
        if (stored !== undefined) for (const t of tallies) t.add(item.fields, stored)
        const row = plainRow(item, stored)
        if (row !== undefined) {
          first ??= item.fields
          plain.push(row)
          continue
        }
        flushPlain()
        steps.push(writeItem(item, Option.fromNullable(stored)))
      }
      flushPlain()
      return steps.length === 1 ? steps[0]! : Effect.forEach(steps, (step) => step, { discard: true })
    }

    const commit = Effect.gen(function* () {
      // Nothing is committed unless the input is still, byte for byte, the file the run processed.
      if (guard !== undefined) yield* guard.verify
      // The store first: one that cannot take its last batch (disk full) fails the run before the
      // output and rejects replace the previous ones.
      const storeChanges =
        store === undefined
          ? undefined
          : yield* Effect.try({
              try: () => store.writer.commit(),
              catch: (e) => new OutputError({ path: store.settings.path, detail: (e as Error).message })
            })
      const out = yield* openSink({})
      yield* out.commit
      yield* rejects.commit
      for (const t of tallies) t.commit()
      const columnCounts =
        countColumn === undefined ? {} : { columnCounts: [...counted].map(([value, n]) => ({ value, n })) }
      return {
        notProcessed: notProcessedRows,
        duplicateRejects,
        ...columnCounts,
        ...(storeChanges !== undefined ? { store: storeChanges } : {})
      }
    })
    return { write, commit }
  })

/**
 * The output pass: the source read again, a chunk at a time, each chunk's outcomes read in one
 * effect beside it (the run's records in ordinal order), into the output writer.
 */
export const writeOutputs = (
  settings: Pick<
    RunSettings,
    "job" | "source" | "output" | "pipeline" | "rejectsPath" | "store" | "countColumn" | "tallies"
  >,
  runId: number,
  guard?: InputGuard,
  duplicates: ReadonlyMap<string, { readonly first: number }> = new Map()
): Effect.Effect<OutputResult, OutputError | SinkError | SourceError | InputChanged | StoreOwned | StoreBusy, Ledger> =>
  Effect.scoped(
    Effect.gen(function* () {
      const ledger = yield* Ledger
      const columns = {
        declared: yield* sourceColumns(settings.source),
        inputTypes: yield* sourceTypes(settings.source)
      }
      const writer = yield* openOutputWriter(settings, columns, guard, duplicates)
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
