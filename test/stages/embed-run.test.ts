/** The embed stage end to end against the emulator: the three `long` policies, the Parquet vector column. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import { embed as emulatedEmbedding } from "../../src/emulator/models/embeddings.ts"
import { embed, embeddingChunks, weightedMean, type LongPolicy } from "../../src/stages/embed.ts"
import { duck } from "../duck.ts"
import { KEY, requestLog } from "../helpers.ts"
import { pipelineOf, readJsonl, runOnce, tempDir } from "../engine/run-helpers.ts"

const LIMIT = 1000
const long = Array.from(
  { length: 400 },
  (_, i) => `Paragraph ${i} describes river ${i % 17} and the bridge at mile ${i * 3}.`
).join(" ")

const writeInput = (dir: string) => {
  const path = join(dir, "in.jsonl")
  writeFileSync(
    path,
    [
      { id: "short", body: "A short note about rivers." },
      { id: "long", body: long }
    ]
      .map((r) => JSON.stringify(r))
      .join("\n") + "\n"
  )
  return path
}

const closeTo = (actual: ReadonlyArray<number>, expected: ReadonlyArray<number>) => {
  expect(actual).toHaveLength(expected.length)
  // Float32 in the ledger: ~7 significant digits.
  for (let i = 0; i < expected.length; i++)
    expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThan(1e-6 + Math.abs(expected[i]!) * 1e-6)
}

const runWith = (policy: LongPolicy, outputFormat = "jsonl") => {
  const log = requestLog()
  return Effect.gen(function* () {
    const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
    const dir = tempDir()
    const input = writeInput(dir)
    const run = yield* runOnce({
      dir,
      input,
      emulator,
      outputFormat,
      pipeline: pipelineOf(embed({ field: "body", long: policy, maxTokensPerCall: LIMIT }))
    })
    return { run, log }
  })
}

const chunks = embeddingChunks(long, LIMIT)

describe("embed run", () => {
  it.scopedLive("mean: one row per record, the token-weighted mean of the chunk vectors", () =>
    Effect.gen(function* () {
      expect(chunks.length).toBeGreaterThan(3)
      const { run, log } = yield* runWith("mean")
      expect(run.summary).toMatchObject({ status: "finished", done: 2, failed: 0 })
      expect(log.entries.filter((e) => e.path === "/v1/embeddings")).toHaveLength(1 + chunks.length)
      const out = readJsonl(run.output)
      expect(out.map((r) => r.id)).toEqual(["short", "long"])
      const expected = weightedMean(
        chunks.map((c) => emulatedEmbedding(c.text, "RETRIEVAL_DOCUMENT")),
        chunks.map((c) => c.tokens)
      )
      closeTo(out[1]!.embedding as Array<number>, expected)
      closeTo(out[0]!.embedding as Array<number>, emulatedEmbedding("A short note about rivers.", "RETRIEVAL_DOCUMENT"))
      expect(run.counters.stages).toEqual({ embed_chunked: 1 })
    })
  )

  it.scopedLive("truncate: the first chunk's vector, and only the first chunk is sent", () =>
    Effect.gen(function* () {
      const { run, log } = yield* runWith("truncate")
      expect(log.entries.filter((e) => e.path === "/v1/embeddings")).toHaveLength(2)
      const out = readJsonl(run.output)
      closeTo(out[1]!.embedding as Array<number>, emulatedEmbedding(chunks[0]!.text, "RETRIEVAL_DOCUMENT"))
      expect(run.counters.stages).toEqual({ embed_chunked: 1, embed_truncated: 1 })
    })
  )

  it.scopedLive("chunks: one row per chunk carrying its index, code-point span and text", () =>
    Effect.gen(function* () {
      const { run } = yield* runWith("chunks")
      const out = readJsonl(run.output)
      expect(out).toHaveLength(1 + chunks.length)
      expect(out[0]).toMatchObject({
        id: "short",
        chunk_index: 0,
        chunk_start: 0,
        chunk_end: 26,
        chunk_text: "A short note about rivers."
      })
      const rows = out.slice(1)
      rows.forEach((row, i) => {
        expect(row).toMatchObject({
          id: "long",
          chunk_index: i,
          chunk_start: chunks[i]!.start,
          chunk_end: chunks[i]!.end,
          chunk_text: chunks[i]!.text
        })
        expect([...long].slice(row.chunk_start as number, row.chunk_end as number).join("")).toBe(row.chunk_text)
        closeTo(row.embedding as Array<number>, emulatedEmbedding(chunks[i]!.text, "RETRIEVAL_DOCUMENT"))
      })
    })
  )

  it.scopedLive("Parquet: DuckDB reads the vector column as a list of FLOAT with 1536 values", () =>
    Effect.gen(function* () {
      const { run } = yield* runWith("mean", "parquet")
      const rows = yield* Effect.promise(() =>
        duck(
          `SELECT id, typeof(embedding) AS t, len(embedding) AS n, embedding[1] AS first FROM read_parquet('${run.output}') ORDER BY id`
        )
      )
      expect(rows.map((r) => [r.id, r.t, Number(r.n)])).toEqual([
        ["long", "FLOAT[]", 1536],
        ["short", "FLOAT[]", 1536]
      ])
      expect(
        Math.abs(Number(rows[1]!.first) - emulatedEmbedding("A short note about rivers.", "RETRIEVAL_DOCUMENT")[0]!)
      ).toBeLessThan(1e-6)
    })
  )
})
