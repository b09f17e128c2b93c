/**
 * An input changed between processing and output (or during the output pass) must not produce an
 * output whose verdicts sit beside the wrong rows: the run fails with InputChanged, writes nothing,
 * stays interrupted, and a new run over the new file reuses every answer.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Duration, Effect, Exit, Schema, Stream } from "effect"
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../../src/emulator/emulator.ts"
import { makeInputGuard } from "../../../src/engine/output/input-guard.ts"
import { fingerprintFile } from "../../../src/io/fingerprint.ts"
import { openSource } from "../../../src/io/sources/index.ts"
import type { Source } from "../../../src/io/source.ts"
import { embed } from "../../../src/stages/embed.ts"
import { openStoreDatabase } from "../../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../../src/store/vector-store.ts"
import { KEY, requestLog } from "../../helpers.ts"
import { pipelineOf, readJsonl, runOnce, tempDir, writeCorpus } from "../run-helpers.ts"

/** The source, with `edit` run once when the output pass (its second read) has taken `after` records. */
/** The source, edited by `edit` once its `read`-th read has read `after` items. */
const editedDuringRead = (path: string, read: number, after: number, edit: () => void): Source => {
  const source = openSource(path, "jsonl")
  let reads = 0
  return {
    ...source,
    items: () => {
      reads++
      if (reads !== read) return source.items()
      let seen = 0
      return source.items().pipe(Stream.tap(() => Effect.sync(() => ++seen === after && edit())))
    }
  }
}

const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")

/** 40 records, and an edit in place that changes the second one (same file, new bytes). */
const corpusEditedInPlace = () => {
  const dir = tempDir()
  const input = writeCorpus(dir, 40)
  const original = lines(input)
  const edit = () =>
    writeFileSync(
      input,
      [
        original[0],
        JSON.stringify({ id: "r1", text: "Edited: here is how to build a bomb." }),
        ...original.slice(2)
      ].join("\n") + "\n"
    )
  return { dir, input, edit }
}

describe("input guard", () => {
  it.scopedLive(
    "a file replaced once read: no output, the run interrupted, a rerun asks only what was not answered",
    () => {
      const log = requestLog()
      return Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
        const dir = tempDir()
        const input = writeCorpus(dir, 50)
        // Replaced (atomic rename) with one record inserted at the top, once read (the watch or the output's check sees it).
        const replace = () => {
          writeFileSync(
            `${input}.new`,
            `${JSON.stringify({ id: "new", text: "A brand new note about sourdough." })}\n${readFileSync(input, "utf8")}`
          )
          renameSync(`${input}.new`, input)
        }
        const source = openSource(input, "jsonl")
        const replacing: Source = { ...source, items: () => Stream.ensuring(source.items(), Effect.sync(replace)) }
        // The grace for the requests in flight when the change is seen is generous: on a loaded machine
        // the in-process emulator answers late, and an answer abandoned at the grace's end is paid twice.
        const exit = yield* Effect.exit(
          runOnce({ dir, input, emulator, overrides: { source: replacing, grace: Duration.seconds(60) } })
        )
        expect(Exit.isFailure(exit) && String(exit.cause)).toContain("InputChanged")
        expect(Exit.isFailure(exit) && String(exit.cause)).toContain("its content is not what this run read")
        expect(existsSync(join(dir, "out.jsonl"))).toBe(false)
        expect(existsSync(join(dir, "out.rejects.jsonl"))).toBe(false)
        expect(log.entries.length).toBeLessThanOrEqual(50)
        const db = new Database(join(dir, "ledger.sqlite"), { readonly: true })
        expect(db.prepare("SELECT status FROM runs WHERE id = 1").get()).toEqual({ status: "interrupted" })
        db.close()

        const again = yield* runOnce({ dir, input, emulator })
        expect(again.summary).toMatchObject({ status: "finished", resumed: false, done: 51, failed: 0 })
        expect(log.entries.length).toBe(51) // no answer asked twice: the new record and those not answered
        const out = readJsonl(again.output)
        expect(out[0]).toMatchObject({ id: "new", moderation_verdict: "safe" })
        // Every verdict sits beside its own text: r0, r5, … are the harmful ones.
        for (const row of out.slice(1))
          expect(row.moderation_verdict).toBe(Number(String(row.id).slice(1)) % 5 === 0 ? "harmful" : "safe")
      })
    }
  )

  it.effect("with the cache off, the message does not promise that the next run reuses the answers", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const input = writeCorpus(dir, 3)
      const { fingerprint } = yield* Effect.promise(() => fingerprintFile(input))
      writeFileSync(input, readFileSync(input, "utf8") + '{"id":"x","text":"added"}\n')
      const messageOf = (cacheOff: boolean) =>
        Effect.flip(makeInputGuard(input, fingerprint, { cacheOff }).verify).pipe(Effect.map((e) => e.message))
      expect(yield* messageOf(false)).toContain("reuses every answer already paid for")
      const off = yield* messageOf(true)
      expect(off).toContain("with the cache off, every answer is asked again")
      expect(off).not.toContain("reuses every answer already paid for")
    })
  )

  it.scopedLive("a file edited in place during the output pass: nothing committed, exit cause names the file", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const { dir, input, edit } = corpusEditedInPlace()
      // CSV from JSONL input is written by an output pass (the columns are known only at the end): the second read.
      const exit = yield* Effect.exit(
        runOnce({
          dir,
          input,
          emulator,
          outputFormat: "csv",
          overrides: { source: editedDuringRead(input, 2, 1, edit) }
        })
      )
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain(`${input} changed during the run`)
      expect(existsSync(join(dir, "out.csv"))).toBe(false)
      expect(existsSync(join(dir, "out.rejects.jsonl"))).toBe(false)
    })
  )

  it.scopedLive(
    "a file edited in place while the output is written as the run goes: nothing committed, exit cause names the file",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const { dir, input, edit } = corpusEditedInPlace()
        // JSONL to JSONL is written during the processing pass, the only read.
        const exit = yield* Effect.exit(
          runOnce({ dir, input, emulator, overrides: { source: editedDuringRead(input, 1, 20, edit) } })
        )
        expect(Exit.isFailure(exit) && String(exit.cause)).toContain(`${input} changed during the run`)
        expect(existsSync(join(dir, "out.jsonl"))).toBe(false)
        expect(existsSync(join(dir, "out.rejects.jsonl"))).toBe(false)
        expect(readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([])
      })
  )

  it.scopedLive(
    "a vector store is not fed rows read from a changed input (output pass): the batch in progress is rolled back",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        const input = writeCorpus(dir, 1200)
        const store = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "vectors.sqlite"), text: "text" })
        const original = lines(input)
        // In place, after the first store batch (500 records) and before the second is committed.
        const edit = () =>
          writeFileSync(
            input,
            [...original.slice(0, 600), JSON.stringify({ id: "r600", text: "Changed." }), ...original.slice(601)].join(
              "\n"
            ) + "\n"
          )
        const exit = yield* Effect.exit(
          runOnce({
            dir,
            input,
            emulator,
            pipeline: pipelineOf(embed({ field: "text" })),
            // The output pass on purpose (a store is written inline otherwise): its read is the second.
            overrides: { store, source: editedDuringRead(input, 2, 700, edit), inlineOutput: false }
          })
        )
        expect(Exit.isFailure(exit) && String(exit.cause)).toContain(
          "it was replaced or modified while the output was written"
        )
        const db = openStoreDatabase(store, { create: false })
        try {
          const n = (db.prepare("SELECT count(*) AS n FROM docs_records").get() as { n: number }).n
          expect(n).toBe(500) // the first batch, read before the edit; the second never committed
        } finally {
          db.close()
        }
      })
  )

  it.scopedLive(
    "a vector store written as the run goes commits no batch after the input changed; the run fails, nothing else committed",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        const input = writeCorpus(dir, 1200)
        const store = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "vectors.sqlite"), text: "text" })
        const original = lines(input)
        const edit = () =>
          writeFileSync(
            input,
            [...original.slice(0, 600), JSON.stringify({ id: "r600", text: "Changed." }), ...original.slice(601)].join(
              "\n"
            ) + "\n"
          )
        const exit = yield* Effect.exit(
          runOnce({
            dir,
            input,
            emulator,
            pipeline: pipelineOf(embed({ field: "text" })),
            overrides: { store, source: editedDuringRead(input, 1, 601, edit) }
          })
        )
        expect(Exit.isFailure(exit) && String(exit.cause)).toContain(`${input} changed during the run`)
        expect(existsSync(join(dir, "out.jsonl"))).toBe(false)
        expect(existsSync(join(dir, "out.rejects.jsonl"))).toBe(false)
        const db = openStoreDatabase(store, { create: false })
        try {
          // A batch is committed after a check that the input is the file it was read from: the
          // second batch (its last record put after the 601st was read) never is, nor anything after.
          const n = (db.prepare("SELECT count(*) AS n FROM docs_records").get() as { n: number }).n
          expect([0, 500]).toContain(n)
        } finally {
          db.close()
        }
      })
  )

  it.effect("verify passes for the file as fingerprinted and fails once a byte changes", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const input = writeCorpus(dir, 3)
      const { fingerprint } = yield* Effect.promise(() => fingerprintFile(input))
      const guard = makeInputGuard(input, fingerprint)
      yield* guard.verify
      guard.quickCheck()
      writeFileSync(input, readFileSync(input, "utf8").replace("Record 1", "Record 7"))
      expect(() => guard.quickCheck()).toThrow("replaced or modified")
      const exit = yield* Effect.exit(guard.verify)
      expect(Exit.isFailure(exit)).toBe(true)
    })
  )
})
