/**
 * The output's two paths — written inline as records finish, or by the output pass after the
 * processing pass — and the handover between them (an inline output that gives up half-way) write
 * the same dataset, rejects and vector store, repeated ids included.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../../src/emulator/emulator.ts"
import type { RunningEmulator } from "../../../src/emulator/server.ts"
import type { RunSettings } from "../../../src/engine/runner.ts"
import { embed } from "../../../src/stages/embed.ts"
import { openStoreDatabase } from "../../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../../src/store/vector-store.ts"
import { KEY } from "../../helpers.ts"
import { pipelineOf, runOnce, tempDir } from "../run-helpers.ts"

const N = 1100
/** Records before this one are answered by an earlier run in the handover's case; they are small. */
const WARM = 600
/**
 * Every 50th record repeats the id of the record 40 before it; every 7th text is an object (it
 * fails). The records from WARM on are large (3 KB): read (256 KiB at a time) while the first
 * window waits, they stay under 1 MiB; the second window's read takes the waiting bytes past it.
 */
const lines = Array.from({ length: N }, (_, i) =>
  JSON.stringify({
    id: i % 50 === 49 ? `r${i - 40}` : `r${i}`,
    text: i % 7 === 3 ? { nested: i } : `Note ${i}: a heron by the lake.`,
    pad: "~".repeat(i < WARM ? 100 : 3000)
  })
)

const runIn = (emulator: RunningEmulator, name: string, overrides: Partial<RunSettings>, warmUp = 0) =>
  Effect.gen(function* () {
    const dir = join(tempDir(), name)
    mkdirSync(dir)
    const pipeline = pipelineOf(embed({ field: "text" }))
    // The first records' answers already stored (an earlier run over the input's start): they
    // finish within their window, the others wait for the service.
    if (warmUp > 0) {
      const start = join(dir, "start.jsonl")
      writeFileSync(start, `${lines.slice(0, warmUp).join("\n")}\n`)
      yield* runOnce({ dir, input: start, emulator, pipeline })
    }
    const input = join(dir, "in.jsonl")
    writeFileSync(input, `${lines.join("\n")}\n`)
    const store = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "kb.sqlite"), text: "text" })
    const run = yield* runOnce({
      dir,
      input,
      emulator,
      pipeline,
      overrides: { store, ...overrides }
    })
    const db = openStoreDatabase(store, { create: false })
    const stored = db.prepare("SELECT record_key, hash, rows FROM docs_records ORDER BY record_key").all()
    const texts = db.prepare("SELECT key, text FROM docs ORDER BY key").all()
    db.close()
    return {
      summary: run.summary,
      output: readFileSync(run.output, "utf8"),
      rejects: readFileSync(run.rejects, "utf8"),
      store: { stored, texts }
    }
  })

describe("the output's paths", () => {
  it.scopedLive(
    "inline, the output pass, and an inline output given up half-way: the same files and store",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, latencyMs: 5 })
        const inline = yield* runIn(emulator, "inline", {})
        const pass = yield* runIn(emulator, "pass", { inlineOutput: false })
        // The first window's records (512), answered by an earlier run, are written inline (a
        // store batch committed); the second window's large records, read while record 600 waits
        // for the service, take what waits past 1 MiB: the inline output gives up, and the output
        // pass writes everything.
        const handover = yield* runIn(emulator, "handover", { inlineOutput: { maxBytes: 1024 * 1024 } }, WARM)

        const repeats = Math.floor(N / 50)
        for (const r of [inline, pass, handover]) {
          expect(r.summary.status).toBe("finished")
          expect(r.summary.duplicates).toMatchObject({ ids: repeats, records: repeats })
          expect(r.output).toBe(inline.output)
          expect(r.rejects).toBe(inline.rejects)
          expect(r.store).toEqual(inline.store)
        }
        // Repeats rejected by the store, with the line of the first record with the id (failed or not).
        const rejected = inline.rejects
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { status: string; line: number; reason: string })
          .filter((r) => r.status === "duplicate id")
        expect(inline.summary.duplicates?.rejected).toBe(rejected.length)
        expect(rejected.length).toBe(repeats)
        expect(rejected[0]).toMatchObject({ line: 50, reason: expect.stringContaining("(first at line 10)") })
        expect(inline.summary.store).toMatchObject({ written: inline.store.stored.length, unchanged: 0 })
        expect(pass.summary.store).toMatchObject({ written: inline.store.stored.length, unchanged: 0 })
        // What the inline output committed before it gave up, the output pass found current.
        expect(handover.summary.store?.unchanged).toBeGreaterThan(0)
        expect(handover.summary.store!.written + handover.summary.store!.unchanged).toBe(inline.store.stored.length)
      }),
    120_000
  )
})
