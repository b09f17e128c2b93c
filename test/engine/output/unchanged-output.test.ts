/**
 * An embedding backfill's rerun whose output would come out the same keeps the Parquet file, the
 * rejects file and the store as the last run wrote them (not rewritten, not touched); anything that
 * changes the output writes it again, and what it writes is what was kept.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Either, Schema } from "effect"
import { readFileSync, statSync, utimesSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../../src/emulator/emulator.ts"
import { parseCondition } from "../../../src/pipeline/condition.ts"
import { embed } from "../../../src/stages/embed.ts"
import { StoreSettings } from "../../../src/store/vector-store.ts"
import { KEY } from "../../helpers.ts"
import { pipelineOf, runOnce, tempDir, writeRecords } from "../run-helpers.ts"

const records = Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, body: `Document ${i} is about topic ${i % 7}.` }))

/** The store's bookkeeping: each record's pass (the mark of the last writer that saw it). */
const storePasses = (path: string) => {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare("SELECT record_key, pass FROM docs_records ORDER BY record_key").all()
  } finally {
    db.close()
  }
}

const setup = () =>
  Effect.gen(function* () {
    const emulator = yield* Emulator.make({ apiKey: KEY })
    const dir = tempDir()
    const input = writeRecords(dir, records)
    const store = Schema.decodeUnknownSync(StoreSettings)({
      path: join(dir, "vectors.sqlite"),
      text: "body",
      cleanup: "full"
    })
    const run = (options: { pipeline?: ReturnType<typeof pipelineOf>; cache?: "read-write" | "refresh" } = {}) =>
      runOnce({
        dir,
        input,
        emulator,
        outputFormat: "parquet",
        pipeline: options.pipeline ?? pipelineOf(embed({ field: "body" })),
        overrides: { store, cache: options.cache ?? "read-write" }
      })
    return { dir, input, store, run }
  })

const identity = (path: string) => {
  const st = statSync(path)
  return { ino: st.ino, mtimeMs: st.mtimeMs, bytes: readFileSync(path) }
}

describe("unchanged output", () => {
  it.scopedLive("a no-op rerun keeps the Parquet file, the rejects and the store rows as they were", () =>
    Effect.gen(function* () {
      const { store, run } = yield* setup()
      const first = yield* run()
      expect(first.summary.outputKept).toBeUndefined()
      const output = identity(first.output)
      const rejects = identity(first.rejects)
      const passes = storePasses(store.path)
      const again = yield* run()
      expect(again.counters.requests).toBe(0)
      expect(again.summary.outputKept).toBe(first.summary.runId)
      expect(again.summary.store).toEqual({ written: 0, unchanged: 40, deleted: 0 })
      expect(identity(again.output)).toEqual(output)
      expect(identity(again.rejects)).toEqual(rejects)
      expect(storePasses(store.path)).toEqual(passes)
      // The run that kept it records it too: the next keeps it as well, naming the run that wrote it.
      expect((yield* run()).summary.outputKept).toBe(first.summary.runId)
    })
  )

  it.scopedLive("an output file touched since is written again, to the same bytes it had", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      const first = yield* run()
      const bytes = readFileSync(first.output)
      const ino = statSync(first.output).ino
      utimesSync(first.output, new Date(), new Date(Date.now() - 60_000))
      const again = yield* run()
      expect(again.summary.outputKept).toBeUndefined()
      expect(statSync(again.output).ino).not.toBe(ino)
      expect(readFileSync(again.output).equals(bytes)).toBe(true)
      // Written again, it is kept by the next run.
      expect((yield* run()).summary.outputKept).toBe(again.summary.runId)
    })
  )

  it.scopedLive("a changed record is written again: output and store", () =>
    Effect.gen(function* () {
      const { dir, run } = yield* setup()
      const first = yield* run()
      const before = readFileSync(first.output)
      writeRecords(
        dir,
        records.map((r, i) => (i === 3 ? { ...r, body: "Something else entirely." } : r))
      )
      const again = yield* run()
      expect(again.counters.requests).toBe(1)
      expect(again.summary.outputKept).toBeUndefined()
      expect(again.summary.store).toEqual({ written: 1, unchanged: 39, deleted: 0 })
      expect(readFileSync(again.output).equals(before)).toBe(false)
    })
  )

  it.scopedLive("answers rewritten since (a refresh) write the output again", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      yield* run()
      const refreshed = yield* run({ cache: "refresh" })
      expect(refreshed.counters.requests).toBe(40)
      expect(refreshed.summary.outputKept).toBeUndefined()
    })
  )

  it.scopedLive("other outcomes over the same input and answers (a `when` now false) write the output again", () =>
    Effect.gen(function* () {
      const { run } = yield* setup()
      yield* run()
      const when = Either.getOrThrow(parseCondition("id != 'd5'"))
      const narrower = yield* run({ pipeline: pipelineOf(embed({ field: "body", when })) })
      expect(narrower.counters.requests).toBe(0)
      expect(narrower.summary.outputKept).toBeUndefined()
      expect(narrower.summary.store).toEqual({ written: 1, unchanged: 39, deleted: 0 })
    })
  )
})
