/**
 * Typed columns end to end: a vector and a JSON column through Parquet (read back by DuckDB),
 * CSV and JSONL; a skipped stage's columns null in every format; vectors stored once.
 */
import { describe, expect, it } from "@effect/vitest"
import { duck } from "../duck.ts"
import { Effect, Option } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "csv-parse/sync"
import { Emulator } from "../../src/emulator/emulator.ts"
import { Ledger } from "../../src/ledger/ledger.ts"
import { SqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import { KEY } from "../helpers.ts"
import { condition, embedStage, lengthStage } from "./fake-stages.ts"
import { pipelineOf, readJsonl, runOnce, tempDir } from "./run-helpers.ts"

const corpus = (dir: string, n = 6) => {
  const path = join(dir, "in.jsonl")
  writeFileSync(
    path,
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ id: `t${i}`, text: `text number ${i} ${"x".repeat(i)}` })
    ).join("\n") + "\n"
  )
  return path
}

/** Skips stage b for every odd record. */
const evenOnly = condition("even", ["id"], (f) => Number(String(f.id).slice(1)) % 2 === 0)

describe("typed output", () => {
  it.scopedLive("Parquet: a vector column reads back in DuckDB as FLOAT[] and a JSON column as JSON text", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const run = yield* runOnce({
        dir,
        input: corpus(dir),
        emulator,
        outputFormat: "parquet",
        pipeline: pipelineOf(embedStage("text"))
      })
      expect(run.summary).toMatchObject({ status: "finished", done: 6 })
      const types = yield* Effect.promise(() =>
        duck(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${run.output}')`)
      )
      expect(types.find((t) => t.column_name === "embedding")?.column_type).toBe("FLOAT[]")
      const rows = yield* Effect.promise(() =>
        duck(
          `SELECT id, len(embedding) AS dim, embedding[1] AS first, CAST(embedding_info AS VARCHAR) AS info FROM '${run.output}' ORDER BY id`
        )
      )
      expect(rows.map((r) => Number(r.dim))).toEqual([1536, 1536, 1536, 1536, 1536, 1536])
      expect(JSON.parse(String(rows[0]!.info))).toEqual({ tokens: expect.any(Number), model: "svc3-embedding" })
      expect(typeof rows[0]!.first).toBe("number")
    })
  )

  it.scopedLive("CSV writes a vector as JSON text; JSONL as a native array", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = corpus(dir, 2)
      const csv = yield* runOnce({
        dir,
        input,
        emulator,
        outputFormat: "csv",
        pipeline: pipelineOf(embedStage("text"))
      })
      const rows = parse(readFileSync(csv.output, "utf8"), { columns: true, bom: true }) as Array<
        Record<string, string>
      >
      const jsonl = readJsonl(
        (yield* runOnce({ dir: tempDir(), input, emulator, pipeline: pipelineOf(embedStage("text")) })).output
      )
      expect(JSON.parse(rows[0]!.embedding!)).toHaveLength(1536)
      expect(JSON.parse(rows[0]!.embedding!)).toEqual(jsonl[0]!.embedding)
      expect(JSON.parse(rows[0]!.embedding_info!)).toEqual(jsonl[0]!.embedding_info)
    })
  )

  it.scopedLive("a record stores its vector as a reference to the answer, not a copy", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const run = yield* runOnce({ dir, input: corpus(dir, 1), emulator, pipeline: pipelineOf(embedStage("text")) })
      const stored = yield* Effect.gen(function* () {
        const ledger = yield* Ledger
        return yield* ledger.record(run.summary.runId, 0)
      }).pipe(Effect.provide(SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))
      const outcome = Option.getOrThrow(stored).outcome
      expect(outcome._tag).toBe("Done")
      if (outcome._tag !== "Done") return
      expect(outcome.output.rows[0]!.embedding).toEqual({ $answer: outcome.output.keys[0], $path: "vector" })
      expect(JSON.stringify(outcome.output).length).toBeLessThan(300)
      expect(readJsonl(run.output)[0]!.embedding).toHaveLength(1536)
    })
  )

  for (const format of ["jsonl", "csv", "parquet"] as const) {
    it.scopedLive(`a skipped stage's columns are present and null in ${format}`, () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        const pipeline = pipelineOf(lengthStage("a", "text"), lengthStage("b", "text", evenOnly))
        const run = yield* runOnce({ dir, input: corpus(dir, 4), emulator, outputFormat: format, pipeline })
        const rows: Array<Record<string, unknown>> =
          format === "jsonl"
            ? readJsonl(run.output)
            : format === "csv"
              ? (parse(readFileSync(run.output, "utf8"), {
                  columns: true,
                  bom: true,
                  cast: (v, ctx) => (ctx.header ? v : v === "" ? null : Number.isNaN(Number(v)) ? v : Number(v))
                }) as Array<Record<string, unknown>>)
              : yield* Effect.promise(() => duck(`SELECT * FROM '${run.output}'`))
        expect(rows.map((r) => [r.id, r.a_len, r.b_len])).toEqual([
          ["t0", 14, 14],
          ["t1", 15, null],
          ["t2", 16, 16],
          ["t3", 17, null]
        ])
        for (const r of rows) expect(Object.keys(r)).toContain("b_len")
      })
    )
  }
})
