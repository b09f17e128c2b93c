/** The generate stage against the emulator: templates, schema validation and retries, columns, tools, streaming. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import { defaultRetryPolicy } from "../../src/engine/flow/retry.ts"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import extractPreset, { normaliseAmount, normaliseDate } from "../../pipelines/extract.ts"
import { Emulator } from "../../src/emulator/emulator.ts"
import type { Stage } from "../../src/pipeline/stage.ts"
import { fillTemplate, generate, type GenerateOptions, generateStage } from "../../src/stages/generate.ts"
import { stageFromEntry } from "../../pipelines/index.ts"
import { duck } from "../duck.ts"
import { KEY, requestLog } from "../helpers.ts"
import { pipelineOf, readJsonl, runOnce, tempDir, writeRecords } from "../engine/run-helpers.ts"

const stage = (options: GenerateOptions): Stage => {
  const s = generate(options)
  if (typeof s === "string") throw new Error(s)
  return s
}

const writeInput = writeRecords

const runRetry = { ...defaultRetryPolicy, baseDelay: Duration.millis(10), maxDelay: Duration.millis(50) }

const chatCalls = (log: ReturnType<typeof requestLog>) =>
  log.entries.filter((e) => e.path === "/v1/chat/completions").length

describe("prompt templates", () => {
  it("fills {{field}} (spaces allowed), null as empty, non-strings as JSON", () => {
    expect(fillTemplate("Summarise {{ title }}: {{body}} {{tags}}", { title: "T", body: null, tags: ["a"] })).toEqual({
      text: 'Summarise T:  ["a"]'
    })
  })
  it("names the first field the record lacks", () => {
    expect(fillTemplate("{{title}} {{body}}", { title: "T" })).toEqual({ missing: "body" })
  })
})

describe("generate run", () => {
  it.scopedLive("a record missing a template field fails with its name; the others are answered", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeInput(dir, [
        { id: "a", body: "The river is high." },
        { id: "b", other: "x" }
      ])
      const run = yield* runOnce({
        dir,
        input,
        emulator,
        pipeline: pipelineOf(stage({ prompt: "Summarise: {{body}}" }))
      })
      expect(run.summary).toMatchObject({ done: 1, failed: 1 })
      expect(String(readJsonl(run.output)[0]!.generate_text)).toMatch(
        /^Emulated reply from svc3-mini to: Summarise: The river is high/
      )
      expect(readJsonl(run.rejects)[0]).toMatchObject({
        key: "b",
        stage: "generate",
        status: "input",
        reason: 'prompt: field "body" is missing'
      })
    })
  )

  it.scopedLive(
    "an answer that fails its schema is asked again with a new seed, then the record fails with the validation errors",
    () => {
      const log = requestLog()
      return Effect.gen(function* () {
        // Every json_schema answer misses the schema (the emulator's nonconforming-rate knob).
        const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest, nonconformingRate: 1 })
        const dir = tempDir()
        const input = writeInput(dir, [{ id: "a", body: "Order 123456 arrived." }])
        const schema = {
          type: "object",
          properties: { code: { type: "string", pattern: "^[0-9]{6}$" } },
          required: ["code"]
        }
        const run = yield* runOnce({
          dir,
          input,
          emulator,
          pipeline: pipelineOf(
            stage({
              prompt: "Order code in: {{body}}",
              response_format: { type: "json_schema", name: "code", schema },
              validationAttempts: 3
            })
          ),
          overrides: { retry: { ...runRetry, maxAttempts: 6 } }
        })
        expect(run.summary).toMatchObject({ done: 0, failed: 1 })
        expect(chatCalls(log)).toBe(3)
        // Three different draws: the seed changed each time.
        expect(new Set(log.entries.map((e) => e.bodyHash)).size).toBe(3)
        const reject = readJsonl(run.rejects)[0]!
        expect(reject).toMatchObject({ stage: "generate", status: "SchemaMismatch", attempts: 3 })
        expect(String(reject.reason)).toMatch(
          /^the answer does not conform to the schema \(attempt 3 of 3\): \/code must match pattern "\^\[0-9\]\{6\}\$"/
        )
      })
    }
  )

  it.scopedLive("retries find a conforming answer where one exists; every stored answer conforms", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      // Half the json_schema answers miss the schema (the emulator's nonconforming-rate knob).
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest, nonconformingRate: 0.5 })
      const dir = tempDir()
      const records = Array.from({ length: 8 }, (_, i) => ({ id: `r${i}`, body: `Message ${i} about the weather.` }))
      const schema = {
        type: "object",
        properties: { word: { type: "string", pattern: "^(alpha|bravo|delta|echo)$" } },
        required: ["word"]
      }
      const run = yield* runOnce({
        dir,
        input: writeInput(dir, records),
        emulator,
        pipeline: pipelineOf(
          stage({
            prompt: "{{body}}",
            response_format: { type: "json_schema", name: "w", schema },
            validationAttempts: 10
          })
        ),
        overrides: { retry: { ...runRetry, maxAttempts: 12 } }
      })
      expect(chatCalls(log)).toBeGreaterThan(8)
      expect(run.summary.done).toBeGreaterThan(0)
      for (const row of readJsonl(run.output)) expect(row.generate_word).toMatch(/^(alpha|bravo|delta|echo)$/)
    })
  })

  it.scopedLive("a json_schema answer's properties become typed columns (DuckDB reads VARCHAR, DOUBLE, BOOLEAN)", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const schema = {
        type: "object",
        properties: {
          title: { type: "string" },
          score: { type: "number", minimum: 0, maximum: 1 },
          urgent: { type: "boolean" },
          tags: { type: "array", items: { type: "string" } }
        },
        required: ["title", "score", "urgent", "tags"]
      }
      const run = yield* runOnce({
        dir,
        input: writeInput(dir, [{ id: "a", body: "Pipe burst in the kitchen" }]),
        emulator,
        outputFormat: "parquet",
        pipeline: pipelineOf(stage({ prompt: "{{body}}", response_format: { type: "json_schema", name: "t", schema } }))
      })
      const rows = yield* Effect.promise(() =>
        duck(
          `SELECT typeof(generate_title) t, typeof(generate_score) s, typeof(generate_urgent) u, generate_score AS score, generate_tags AS tags FROM read_parquet('${run.output}')`
        )
      )
      expect(rows[0]).toMatchObject({ t: "VARCHAR", s: "DOUBLE", u: "BOOLEAN" })
      expect(Number(rows[0]!.score)).toBeGreaterThanOrEqual(0)
      expect(Array.isArray(JSON.parse(String(rows[0]!.tags)))).toBe(true)
    })
  )

  it.scopedLive("finish_reason length: reported for text, a failure for JSON (truncated JSON is not an answer)", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeInput(dir, [{ id: "a", body: "Tell me about rivers." }])
      const text = yield* runOnce({
        dir,
        input,
        emulator,
        pipeline: pipelineOf(stage({ prompt: "{{body}}", max_completion_tokens: 3 }))
      })
      expect(readJsonl(text.output)[0]).toMatchObject({ generate_finish_reason: "length" })
      const jsonDir = tempDir()
      const json = yield* runOnce({
        dir: jsonDir,
        input: writeInput(jsonDir, [{ id: "a", body: "Tell me about rivers." }]),
        emulator,
        pipeline: pipelineOf(
          stage({ prompt: "{{body}}", max_completion_tokens: 3, response_format: { type: "json_object" } })
        )
      })
      expect(json.summary).toMatchObject({ done: 0, failed: 1 })
      expect(readJsonl(json.rejects)[0]).toMatchObject({
        status: "TruncatedOutput",
        reason: "the JSON answer was cut at max_completion_tokens (finish_reason length): raise max_completion_tokens"
      })
    })
  )

  it.scopedLive(
    "tools: the round trip runs the handler and the answer carries its normalised values (extract preset)",
    () => {
      const log = requestLog()
      return Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
        const dir = tempDir()
        const input = writeInput(dir, [
          { id: "a", text: "Invoice INV-7: issued 2026年3月5日, total due ¥3,200." },
          { id: "b", text: "Receipt #9 — paid $1,200.50 by card on March 7, 2026." },
          { id: "c", text: "The app crashes on start since 2026-04-18." }
        ])
        const run = yield* runOnce({
          dir,
          input,
          emulator,
          pipeline: pipelineOf(...extractPreset.build({ text: ["text"] }))
        })
        expect(run.summary).toMatchObject({ done: 3, failed: 0 })
        // One call that asks for the tool, one for the final answer, per record.
        expect(chatCalls(log)).toBe(6)
        const out = readJsonl(run.output)
        expect(out.map((r) => [r.extract_date, r.extract_amount, r.extract_currency, r.extract_tool_calls])).toEqual([
          ["2026-03-05", 3200, "JPY", 1],
          ["2026-03-07", 1200.5, "USD", 1],
          ["2026-04-18", null, null, 1]
        ])
      })
    }
  )

  it.scopedLive("stream: true gives the same answer as a plain request", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const plainDir = tempDir()
      const streamDir = tempDir()
      const records = [{ id: "a", body: "Describe the harbour at dawn." }]
      const plain = yield* runOnce({
        dir: plainDir,
        input: writeInput(plainDir, records),
        emulator,
        pipeline: pipelineOf(stage({ prompt: "{{body}}", seed: 4 }))
      })
      const streamed = yield* runOnce({
        dir: streamDir,
        input: writeInput(streamDir, records),
        emulator,
        pipeline: pipelineOf(stage({ prompt: "{{body}}", seed: 4, stream: true }))
      })
      expect(readJsonl(streamed.output)[0]!.generate_text).toBe(readJsonl(plain.output)[0]!.generate_text)
      expect(String(readJsonl(plain.output)[0]!.generate_text).length).toBeGreaterThan(20)
    })
  )
})

describe("generate options", () => {
  it("refuses a sampling parameter outside the spec's range when the job is loaded", () => {
    const r = stageFromEntry(generateStage, { prompt: "{{x}}", temperature: 3 }, "job.yaml", 0)
    expect(Either.isLeft(r) && r.left.message).toMatch(
      /^job\.yaml: stages\.0\.generate\.temperature: Expected a number between 0 and 2, actual 3/
    )
  })

  it("refuses n > 1 with JSON output", () => {
    const r = stageFromEntry(
      generateStage,
      { prompt: "{{x}}", n: 2, response_format: { type: "json_object" } },
      "job.yaml",
      0
    )
    expect(Either.isLeft(r) && r.left.message).toBe(
      "job.yaml: stages.0.generate.n: more than one candidate is not supported with JSON output"
    )
  })

  it("reads a schema file relative to the job file, and names one it cannot read", () => {
    const dir = tempDir()
    mkdirSync(join(dir, "schemas"))
    writeFileSync(
      join(dir, "schemas", "s.json"),
      JSON.stringify({ type: "object", properties: { city: { type: "string" } } })
    )
    const ok = stageFromEntry(
      generateStage,
      { prompt: "{{x}}", response_format: { type: "json_schema", schema: "schemas/s.json" } },
      join(dir, "job.yaml"),
      0
    )
    expect(Either.isRight(ok) && ok.right.columns.map((c) => c.name)).toEqual([
      "generate_json",
      "generate_city",
      "generate_finish_reason"
    ])
    const missing = stageFromEntry(
      generateStage,
      { prompt: "{{x}}", response_format: { type: "json_schema", schema: "nope.json" } },
      join(dir, "job.yaml"),
      0
    )
    expect(Either.isLeft(missing) && missing.left.message).toMatch(
      /stages\.0\.generate\.response_format\.schema: cannot read .*nope\.json/
    )
  })
})

describe("extract normalisers", () => {
  it("reads dates in Japanese and English spellings", () => {
    expect(["2026年3月5日", "March 5, 2026", "5 March 2026", "2026/11/02", "Nov. 2, 2026"].map(normaliseDate)).toEqual([
      "2026-03-05",
      "2026-03-05",
      "2026-03-05",
      "2026-11-02",
      "2026-11-02"
    ])
  })
  it("reads amounts with their currency", () => {
    expect(["¥3,200", "3,200円", "$1,200.50", "EUR 75.20", "no money"].map(normaliseAmount)).toEqual([
      { amount: 3200, currency: "JPY" },
      { amount: 3200, currency: "JPY" },
      { amount: 1200.5, currency: "USD" },
      { amount: 75.2, currency: "EUR" },
      null
    ])
  })
})
