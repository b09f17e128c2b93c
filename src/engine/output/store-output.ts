/**
 * The vector store as a destination of the output: a done record's rows (its vectors, with the
 * text and metadata taken from its row or input fields) put under its record key, a failed one's
 * kept as they are, and each record's key claimed, so that a repeated id — a key an earlier record
 * of this pass had — is told with the line of that first record (the writer rejects it rather than
 * let it replace the first one's vectors). The store keeps the keys it met, not the writer's memory.
 */
import { Effect, type Scope } from "effect"
import { createHash } from "node:crypto"
import { vectorStoreFor } from "../../io/sinks/index.ts"
import type { RecordOutput } from "../../ledger/stored.ts"
import type { Column } from "../../pipeline/columns.ts"
import type { Row } from "../../pipeline/stage.ts"
import { lockStore, type StoreBusy } from "../../store/store-lock.ts"
import { StoreOwned } from "../../store/store-owner.ts"
import { type StoreChanges, type StoreRow, type StoreSettings, storeVectorColumn } from "../../store/vector-store.ts"
import { InputChanged, type InputGuard } from "./input-guard.ts"
import { OutputError } from "./output-error.ts"

export interface StoreOutput {
  /** A done record's rows (its vector references resolved), with its input fields for text and metadata. */
  readonly put: (
    recordKey: string,
    output: RecordOutput,
    resolved: ReadonlyArray<Row>,
    fields: Row
  ) => Effect.Effect<void, OutputError | InputChanged>
  /** A record still in the source whose vectors stay (it failed this run). */
  readonly keep: (recordKey: string) => Effect.Effect<void, OutputError | InputChanged>
  /** Undefined for the first record of this pass with `recordKey`, else the line of that first one. */
  readonly claim: (recordKey: string, line: number) => Effect.Effect<number | undefined, OutputError | InputChanged>
  /** The writer's pass (see StoreWriter.pass). */
  readonly pass: string
  /** Commits the last batch and applies `cleanup`. */
  readonly commit: Effect.Effect<StoreChanges, OutputError>
}

const text = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === "string" ? v : JSON.stringify(v)

/**
 * A record's content for the store: its answers' keys and what the store keeps of each row (text
 * and metadata columns). Unchanged since the last pass: the store skips it without resolving vectors.
 */
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
    // A stored vector comes as a Float32Array (the ledger's bytes), a fresh one as numbers.
    if (!Array.isArray(v) && !(v instanceof Float32Array)) return []
    return [
      {
        vector: v as StoreRow["vector"],
        text: settings.text === undefined ? null : text(r[settings.text] ?? fields[settings.text]),
        metadata: Object.fromEntries(settings.metadata.map((m) => [m, text(r[m] ?? fields[m]) ?? ""]))
      }
    ]
  })

/**
 * The store's writer, closed with the scope; the store's lock is held as long. `wait`: wait for
 * another process writing the store (the output pass), else fail with StoreBusy at once (the
 * inline output, which leaves the store to the output pass rather than hold up the run).
 */
export const openStoreOutput = (
  job: string,
  settings: StoreSettings,
  columns: ReadonlyArray<Column>,
  guard: InputGuard | undefined,
  wait = true
): Effect.Effect<StoreOutput, OutputError | StoreOwned | StoreBusy, Scope.Scope> =>
  Effect.gen(function* () {
    const target = storeVectorColumn(settings, columns)
    if (typeof target === "string") return yield* new OutputError({ path: settings.path, detail: target })
    const adapter = vectorStoreFor(settings.format)
    if (adapter === undefined)
      return yield* new OutputError({ path: settings.path, detail: `no vector store named ${settings.format}` })
    // Another process writing the same store file (another job's table, or this job with another ledger) goes first.
    yield* wait ? lockStore(settings.path) : lockStore(settings.path, 0)
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
    // The batch commit's check of the input throws InputChanged: passed on as it is.
    const toStore = <A>(write: () => A) =>
      Effect.try({
        try: write,
        catch: (e) =>
          e instanceof InputChanged ? e : new OutputError({ path: settings.path, detail: (e as Error).message })
      })
    return {
      put: (recordKey, output, resolved, fields) =>
        toStore(() =>
          writer.put(recordKey, storeHash(output.keys, output.rows, fields, settings), () =>
            storeRows(resolved, fields, target.column, settings)
          )
        ),
      keep: (recordKey) => toStore(() => writer.keep(recordKey)),
      claim: (recordKey, line) => toStore(() => writer.claim(recordKey, line)),
      pass: writer.pass,
      commit: Effect.try({
        try: () => writer.commit(),
        catch: (e) => new OutputError({ path: settings.path, detail: (e as Error).message })
      })
    }
  })
