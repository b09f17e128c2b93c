/**
 * An unchanged output kept as it is. A finished run records what its output was written from (an
 * `OutputManifest` with its statistics); a later run whose output would come out the same keeps
 * the files rather than write them again (a backfill's no-op rerun spent most of its time
 * rewriting the Parquet vector column and touching every store record). The same means:
 * - the same settings (paths, formats, store, columns, id column, input options);
 * - the same input (its fingerprint) and the same outcome for every record (their digest);
 * - no answer written to the ledger since (the answers the outcomes refer to are as they were);
 * - the files and the store's table as that run left them (size, mtime and inode of each file;
 *   the table's record count, all of them seen by that run's pass).
 * Checking the outcomes reads the input and the run's outcomes once (the row tallies, such as the
 * report's, are fed as it goes), but no answer: when anything differs, the output is written.
 */
import { Chunk, Effect, Stream } from "effect"
import { createHash } from "node:crypto"
import { statSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { Source, SourceError } from "../../io/source.ts"
import { vectorStoreFor } from "../../io/sinks/index.ts"
import { Ledger } from "../../ledger/ledger.ts"
import type { OutputManifest } from "../../ledger/stored.ts"
import type { InputChanged, InputGuard } from "./input-guard.ts"
import { makeOutcomeDigest } from "./outcome-digest.ts"
import { outcomesReader } from "./outcome-reader.ts"
import type { OutputResult, OutputSettings } from "./output-writer.ts"

/**
 * Raised when what a manifest holds changes meaning, or a sink writes other bytes for the same
 * rows (an output written by an older program is then written again, as a full rewrite would).
 */
const MANIFEST_VERSION = 1

/**
 * The program that wrote the output: this module's file (a chunk of the bundle as installed), its
 * size and mtime, so an upgrade or a rebuild writes the output again rather than trust that the
 * sinks' bytes are unchanged (MANIFEST_VERSION alone relies on being raised by hand).
 */
const programStamp = (() => {
  try {
    const st = statSync(fileURLToPath(import.meta.url))
    return `${st.size}:${st.mtimeMs}`
  } catch {
    return "unknown"
  }
})()

/** What the check reads of a run's settings: the writer's, and what else decides the bytes. */
export interface UnchangedOutputSettings extends OutputSettings {
  readonly source: Source
  readonly fingerprint: string
  /** What else decides the output's bytes: the job's input options. */
  readonly outputIdentity?: string | undefined
}

/** The digest of the settings that decide the output's bytes. */
export const outputSettingsDigest = (settings: UnchangedOutputSettings): string =>
  createHash("sha256")
    .update(
      JSON.stringify([
        MANIFEST_VERSION,
        programStamp,
        settings.output,
        settings.rejectsPath,
        settings.store ?? null,
        settings.idField ?? null,
        settings.pipeline.columns,
        settings.source.format,
        settings.source.path,
        settings.outputIdentity ?? null
      ])
    )
    .digest("base64url")

type FileStamp = OutputManifest["files"][number]

const stamp = (path: string): FileStamp | undefined => {
  try {
    const st = statSync(path)
    return { path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino }
  } catch {
    return undefined
  }
}

const sameStamp = (a: FileStamp, b: FileStamp | undefined) =>
  b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino

/** The manifest of the job's newest finished run before `runId`, if it recorded one. */
export const previousManifest = (job: string, runId: number) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const runs = yield* ledger.runs(job, 8)
    const last = runs.find((r) => r.id !== runId && r.status === "finished")
    return last?.stats.output
  })

/**
 * The manifest of an output just committed (undefined: a file or the store cannot be told, so the
 * next run writes again). `answersAt`: the newest answer when the output began.
 */
export const manifestOf = (
  settings: UnchangedOutputSettings,
  result: OutputResult,
  answersAt: number,
  writtenBy: number
): OutputManifest | undefined => {
  if (result.outcomes === undefined) return undefined
  const files = [stamp(settings.output.path), stamp(settings.rejectsPath)]
  if (files.some((f) => f === undefined)) return undefined
  let store: OutputManifest["store"]
  if (settings.store !== undefined) {
    const adapter = vectorStoreFor(settings.store.format)
    const state = result.storePass === undefined ? undefined : adapter?.state(settings.store, result.storePass)
    if (state === undefined || result.store === undefined) return undefined
    store = { pass: result.storePass!, ...state, kept: result.store.written + result.store.unchanged }
  }
  return {
    settings: outputSettingsDigest(settings),
    fingerprint: settings.fingerprint,
    outcomes: result.outcomes,
    answersAt,
    files: files as Array<FileStamp>,
    ...(store !== undefined ? { store } : {}),
    notProcessed: result.notProcessed,
    duplicateRejects: result.duplicateRejects,
    writtenBy
  }
}

/** Why the previous output cannot be kept without reading the outcomes; undefined: it may be. */
const differs = (
  settings: UnchangedOutputSettings,
  previous: OutputManifest,
  answersAt: number
): string | undefined => {
  if (previous.settings !== outputSettingsDigest(settings)) return "the job's output settings changed"
  if (previous.fingerprint !== settings.fingerprint) return "the input changed"
  if (previous.answersAt !== answersAt) return "answers were written since"
  for (const f of previous.files) if (!sameStamp(f, stamp(f.path))) return `${f.path} changed since`
  if (settings.store !== undefined) {
    const p = previous.store
    const state = p === undefined ? undefined : vectorStoreFor(settings.store.format)?.state(settings.store, p.pass)
    if (p === undefined || state === undefined || state.records !== p.records || state.current !== p.current)
      return "the store changed since"
  }
  return undefined
}

/**
 * Keeps the previous output when this run's would be the same (see the module's comment): the
 * output's result, as writing it would have given, or undefined (write it; the reason logged).
 * The row tallies are fed and committed only when it is kept.
 */
export const keepUnchangedOutput = (
  settings: UnchangedOutputSettings,
  runId: number,
  previous: OutputManifest,
  answersAt: number,
  guard: InputGuard
): Effect.Effect<OutputResult | undefined, SourceError | InputChanged, Ledger> =>
  Effect.gen(function* () {
    const reason = differs(settings, previous, answersAt)
    if (reason !== undefined) {
      yield* Effect.logDebug(`the output is written again: ${reason}`)
      return undefined
    }
    const ledger = yield* Ledger
    const tallies = (settings.tallies ?? []).map((make) => make())
    const digest = makeOutcomeDigest()
    const outcomesOf = outcomesReader(ledger, runId)
    yield* settings.source.items().pipe(
      Stream.runForEachChunk((chunk) => {
        const records = Chunk.toReadonlyArray(chunk).flatMap((item) => (item._tag === "Record" ? [item] : []))
        return Effect.map(outcomesOf(records.map((r) => r.ordinal)), (outcomes) =>
          records.forEach((record, i) => {
            const stored = outcomes[i]
            digest.add(record.ordinal, stored)
            if (stored !== undefined) for (const t of tallies) t.add(record.fields, stored)
          })
        )
      })
    )
    if (digest.digest() !== previous.outcomes) {
      yield* Effect.logDebug("the output is written again: outcomes changed")
      return undefined
    }
    // As a commit would: only if the input is still, byte for byte, the file the run processed.
    yield* guard.verify
    for (const t of tallies) t.commit()
    return {
      notProcessed: previous.notProcessed,
      duplicateRejects: previous.duplicateRejects,
      outcomes: previous.outcomes,
      kept: previous.writtenBy,
      ...(previous.store !== undefined
        ? { store: { written: 0, unchanged: previous.store.kept, deleted: 0 }, storePass: previous.store.pass }
        : {})
    } satisfies OutputResult
  })
