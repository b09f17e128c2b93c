/**
 * Rerank, embeddings and translate wire shapes (spec §2.8–2.10, §4.4–4.6).
 */
import { Schema } from "effect"
import { codePointLength, Limits } from "../limits.ts"
import { countTokens, withinTokens } from "../tokens.ts"
import { oneOf } from "./one-of.ts"

// ---- rerank ---------------------------------------------------------------------------------

export const RerankTaskType = oneOf(
  "GENERAL_RETRIEVAL",
  "GENERAL_QA",
  "NEWS_RETRIEVAL",
  "SEMANTIC_SIMILARITY",
  "CUSTOMIZE"
)
export type RerankTaskType = typeof RerankTaskType.Type

export const RerankRequest = Schema.Struct({
  query: Schema.String,
  documents: Schema.Array(Schema.String).pipe(
    Schema.minItems(Limits.rerankMinDocuments),
    Schema.maxItems(Limits.rerankMaxDocuments)
  ),
  model: Schema.NonEmptyString,
  task_type: Schema.optional(RerankTaskType),
  query_instruction: Schema.optional(Schema.String)
}).pipe(
  Schema.filter((r) => {
    if (r.task_type === "CUSTOMIZE" && r.query_instruction === undefined) {
      return { path: ["query_instruction"], message: "query_instruction is required when task_type is CUSTOMIZE" }
    }
    const queryTokens = countTokens(r.query)
    for (let i = 0; i < r.documents.length; i++) {
      const doc = r.documents[i]!
      if (!withinTokens(doc, Limits.rerankPairTokens - queryTokens)) {
        return {
          path: ["documents", i],
          message: `query plus document is ${queryTokens + countTokens(doc)} tokens; at most ${Limits.rerankPairTokens} per pair`
        }
      }
    }
    return true
  })
)
export type RerankRequest = typeof RerankRequest.Type

export const DocumentScore = Schema.Struct({ document_id: Schema.Int, score: Schema.Number })
export type DocumentScore = typeof DocumentScore.Type

const EndpointUsage = Schema.Struct({
  prompt_tokens: Schema.Int,
  total_tokens: Schema.Int,
  completion_tokens: Schema.optional(Schema.Int),
  prompt_tokens_details: Schema.optional(Schema.Unknown)
})

export const RerankResponse = Schema.Struct({
  id: Schema.String,
  object: Schema.String,
  created: Schema.Int,
  model: Schema.String,
  data: Schema.Tuple(Schema.Struct({ object: Schema.String, index: Schema.Int, result: Schema.Array(DocumentScore) })),
  usage: EndpointUsage
})
export type RerankResponse = typeof RerankResponse.Type

// ---- embeddings -----------------------------------------------------------------------------

export const EmbeddingTaskType = oneOf(
  "RETRIEVAL_DOCUMENT",
  "SEMANTIC_SIMILARITY",
  "RETRIEVAL_QUERY",
  "QUESTION_ANSWERING",
  "FACT_VERIFICATION",
  "CLASSIFICATION",
  "CLUSTERING"
)
export type EmbeddingTaskType = typeof EmbeddingTaskType.Type

export const EmbeddingInput = Schema.String.pipe(
  Schema.filter((s) => (s.length === 0 ? "input must not be empty" : true)),
  Schema.filter((s) =>
    withinTokens(s, Limits.embeddingInputTokens)
      ? true
      : `input is ${countTokens(s)} tokens; at most ${Limits.embeddingInputTokens}`
  )
)

export const EmbeddingsRequest = Schema.Struct({
  input: EmbeddingInput,
  task_type: EmbeddingTaskType,
  model: Schema.NonEmptyString,
  encoding_format: Schema.optional(Schema.String)
})
export type EmbeddingsRequest = typeof EmbeddingsRequest.Type

/**
 * A 1536-float vector, checked in one pass: element-wise Schema decoding of every float costs
 * more than the rest of an embeddings call on the client (measured: docs/performance.md, client section).
 */
export const EmbeddingVector = Schema.declare(
  (u: unknown): u is ReadonlyArray<number> => {
    if (!Array.isArray(u) || u.length !== Limits.embeddingDimension) return false
    for (let i = 0; i < u.length; i++) if (typeof u[i] !== "number") return false
    return true
  },
  { identifier: "EmbeddingVector", description: `an array of ${Limits.embeddingDimension} numbers` }
)

export const EmbeddingsResponse = Schema.Struct({
  id: Schema.String,
  object: Schema.String,
  created: Schema.Int,
  model: Schema.String,
  data: Schema.Tuple(
    Schema.Struct({
      object: Schema.String,
      index: Schema.Int,
      embedding: EmbeddingVector
    })
  ),
  usage: EndpointUsage
})
export type EmbeddingsResponse = typeof EmbeddingsResponse.Type

// ---- translate ------------------------------------------------------------------------------

export const Lang = oneOf("ja", "en")
export type Lang = typeof Lang.Type

export const TranslateText = Schema.String.pipe(
  Schema.filter((s) => {
    const n = codePointLength(s)
    return n <= Limits.translateCodePoints ? true : `text is ${n} code points; at most ${Limits.translateCodePoints}`
  })
)

export const TranslateRequest = Schema.Struct({
  text: TranslateText,
  source_lang: Lang,
  target_lang: Lang,
  /** §4.6: translate selects no model and ignores one; accepted here, never sent (client.ts). */
  model: Schema.optional(Schema.String)
}).pipe(
  Schema.filter((r) =>
    r.source_lang === r.target_lang
      ? { path: ["target_lang"], message: "source_lang and target_lang must differ" }
      : true
  )
)
export type TranslateRequest = typeof TranslateRequest.Type

export const TranslateResponse = Schema.Struct({ translated_text: Schema.String })
export type TranslateResponse = typeof TranslateResponse.Type

/** `{ message }` error bodies (§7). */
export const ErrorBody = Schema.Struct({ message: Schema.String })
