/** The embed stage's parts: chunk spans, the token-weighted mean, a length refusal split and retried. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { embed as emulatedEmbedding } from "../../src/emulator/models/embeddings.ts"
import { Float32Vector } from "../../src/ledger/stored.ts"
import { TextService } from "../../src/service/client.ts"
import { BadRequestError } from "../../src/service/errors.ts"
import { countTokens } from "../../src/service/tokens.ts"
import { embed, embeddingChunks, embedStage, weightedMean } from "../../src/stages/embed.ts"
import { stageFromEntry } from "../../pipelines/index.ts"
import { Schema } from "effect"
import { preparation, refusal } from "./prepare-result.ts"

const prose = (n: number) =>
  Array.from({ length: n }, (_, i) => `Sentence number ${i} talks about gardens, rivers and 🌸 blossoms.`).join(" ")

describe("embeddingChunks", () => {
  it("keeps a text that fits in bytes whole, without tokenizing", () => {
    const chunks = embeddingChunks("短い文です。", 7000)
    expect(chunks).toEqual([{ text: "短い文です。", start: 0, end: 6, tokens: 18 }])
  })

  it("splits a long text into chunks within the limit whose code-point spans tile the text", () => {
    const text = `🌸${prose(900)}`
    const chunks = embeddingChunks(text, 2000)
    expect(chunks.length).toBeGreaterThan(3)
    const points = [...text]
    let at = 0
    for (const c of chunks) {
      expect(c.tokens).toBeLessThanOrEqual(2000)
      expect(c.tokens).toBe(countTokens(c.text))
      expect(c.start).toBe(at)
      expect(points.slice(c.start, c.end).join("")).toBe(c.text)
      at = c.end
    }
    expect(at).toBe(points.length)
  })
})

describe("weightedMean", () => {
  it("weighs each vector by its tokens", () => {
    expect(
      weightedMean(
        [
          [1, 0],
          [0, 1]
        ],
        [3, 1]
      )
    ).toEqual([0.75, 0.25])
  })
  it("averages plainly when no weight is given", () => {
    expect(
      weightedMean(
        [
          [2, 0],
          [0, 2]
        ],
        [0, 0]
      )
    ).toEqual([1, 1])
  })
})

describe("Float32Vector", () => {
  it("stores 4 bytes a value and reads back the Float32 values, as a Float32Array", () => {
    const bytes = Schema.encodeSync(Float32Vector)([0.5, -1.25, 3e-7])
    expect(bytes.byteLength).toBe(12)
    const decoded = Schema.decodeSync(Float32Vector)(bytes)
    expect(decoded).toBeInstanceOf(Float32Array)
    expect(Array.from(decoded)).toEqual([0.5, -1.25, Math.fround(3e-7)])
  })
})

/** A TextService whose embeddings refuse inputs over `limit` tokens (a stricter tokenizer than ours). */
const strictService = (limit: number, calls: Array<string>) =>
  TextService.layerTest({
    embed: (input) => {
      calls.push(input.input)
      const tokens = countTokens(input.input)
      return tokens > limit
        ? Effect.fail(
            new BadRequestError({
              endpoint: "embeddings",
              serviceMessage: `input is ${tokens} tokens; at most ${limit}`
            })
          )
        : Effect.succeed({
            id: "e",
            object: "list",
            created: 0,
            model: input.model,
            data: [
              { object: "embedding", index: 0, embedding: emulatedEmbedding(input.input, input.task_type) }
            ] as const,
            usage: { prompt_tokens: tokens, total_tokens: tokens }
          })
    }
  })

describe("embed stage", () => {
  it.effect("splits a chunk the service refuses for its length, and merges the halves token-weighted", () => {
    const calls: Array<string> = []
    const text = prose(60)
    const stage = embed({ field: "body" })
    return Effect.gen(function* () {
      const prepared = preparation(stage.prepare({ body: text }))
      expect(prepared.requests).toHaveLength(1)
      const svc = yield* TextService
      const answer = yield* prepared.requests[0]!.send(svc)
      // Refused whole, then asked in parts of at most half its tokens (sentence boundaries), which fit.
      expect(calls[0]).toBe(text)
      const halves = calls.slice(1)
      expect(halves.join("")).toBe(text)
      expect(halves.length).toBeGreaterThanOrEqual(2)
      for (const h of halves) expect(countTokens(h)).toBeLessThanOrEqual(Math.ceil(countTokens(text) / 2))
      const expected = weightedMean(
        halves.map((h) => emulatedEmbedding(h, "RETRIEVAL_DOCUMENT")),
        halves.map(countTokens)
      )
      expect(answer.value).toEqual(expected)
    }).pipe(Effect.provide(strictService(Math.ceil(countTokens(text) * 0.6), calls)))
  })

  it.effect("does not send empty text: the vector is null", () =>
    Effect.gen(function* () {
      const prepared = preparation(embed({ field: "body" }).prepare({ body: "  " }))
      expect(prepared.requests).toHaveLength(0)
      expect(prepared.assemble([])).toEqual([{ embedding: null }])
    })
  )

  it.effect("fails a record whose field is missing, naming it", () =>
    Effect.gen(function* () {
      const error = refusal(embed({ field: "body" }).prepare({ title: "x" }))
      expect(error.message).toBe('field "body" is missing')
    })
  )

  it("refuses an unknown task_type when the job is loaded", () => {
    const r = stageFromEntry(embedStage, { field: "body", task_type: "RETRIEVAL" }, "job.yaml", 1)
    expect(Either.isLeft(r) && r.left.message).toBe(
      `job.yaml: stages.1.embed.task_type: Expected one of "RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY", "RETRIEVAL_QUERY", "QUESTION_ANSWERING", "FACT_VERIFICATION", "CLASSIFICATION", "CLUSTERING", actual "RETRIEVAL"`
    )
  })

  it("accepts every task type of §4.5", () => {
    for (const t of [
      "RETRIEVAL_DOCUMENT",
      "SEMANTIC_SIMILARITY",
      "RETRIEVAL_QUERY",
      "QUESTION_ANSWERING",
      "FACT_VERIFICATION",
      "CLASSIFICATION",
      "CLUSTERING"
    ]) {
      expect(Either.isRight(stageFromEntry(embedStage, { field: "body", task_type: t }, "job.yaml", 0))).toBe(true)
    }
  })
})
