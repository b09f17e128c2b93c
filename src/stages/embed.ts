/**
 * embed: one text field → one 1536-d vector per record (spec §4.5, §2.9), or one per chunk.
 * - The service takes at most 8,000 tokens by a tokenizer it does not publish. A text of at most
 *   `maxTokensPerCall` UTF-8 bytes is sent as is (a byte-level BPE never yields more tokens than
 *   bytes); a longer one is counted with o200k and split at sentence/word boundaries into chunks of
 *   at most `maxTokensPerCall` tokens (default 7,000: a margin for the service's own tokenizer).
 *   If the service still refuses a chunk for its length, that chunk is split in two and each half
 *   asked (up to three times deep), their vectors merged token-weighted: a record never fails for a
 *   length we could have split.
 * - `long`: `mean` (default) one vector per record, the token-weighted mean of its chunks' vectors;
 *   `truncate` the first chunk's vector; `chunks` one output row per chunk with `chunk_index`,
 *   `chunk_start`/`chunk_end` (code-point offsets into the field, end exclusive) and `chunk_text`.
 * - Vectors are stored and written as returned: not normalised (§2.9); cosine is the measure.
 * - Empty or whitespace-only text is not sent: the vector is null.
 */
import { Effect, Schema } from "effect"
import type { Condition } from "../pipeline/condition.ts"
import { makeRequest, prepared, type Row, type Stage, StageInputError, type StageRequest } from "../pipeline/stage.ts"
import { column, ColumnType, type Column } from "../pipeline/columns.ts"
import { Float32Vector, type VectorValues } from "../ledger/stored.ts"
import type { TextService } from "../service/client.ts"
import type { ServiceError } from "../service/errors.ts"
import { Limits, Models, utf8Bytes } from "../service/limits.ts"
import { EmbeddingTaskType } from "../service/schemas/endpoints.ts"
import { countTokens } from "../service/tokens.ts"
import { chunkText } from "./chunking.ts"
import { defineStageType } from "../pipeline/stage-type.ts"
import { fieldText } from "./text-field.ts"

export const LongPolicy = Schema.Literal("mean", "truncate", "chunks")
export type LongPolicy = typeof LongPolicy.Type

export interface EmbedOptions {
  readonly field: string
  readonly task_type?: EmbeddingTaskType
  readonly model?: string
  readonly long?: LongPolicy
  /** Tokens per call (o200k count); at most the service's 8,000. */
  readonly maxTokensPerCall?: number
  /** The vector column (default `embedding`). */
  readonly column?: string
  readonly when?: Condition
}

export const DEFAULT_EMBED_TOKENS = 7000
/** Splits of a chunk the service refused for its length, at most this deep (2³ = 8 parts). */
const MAX_SPLIT_DEPTH = 3

export interface Chunk {
  readonly text: string
  /** Code-point offsets into the field's text, end exclusive. */
  readonly start: number
  readonly end: number
  readonly tokens: number
}

const codePoints = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

/** The text in chunks of at most `limit` tokens, each with its span and token count. */
export const embeddingChunks = (text: string, limit: number): ReadonlyArray<Chunk> => {
  // Bytes bound tokens from above: a text that fits in bytes needs no tokenizer.
  if (utf8Bytes(text) <= limit) return [{ text, start: 0, end: codePoints(text), tokens: utf8Bytes(text) }]
  let start = 0
  return chunkText(text, limit, countTokens).map((part) => {
    const length = codePoints(part)
    const chunk = { text: part, start, end: start + length, tokens: countTokens(part) }
    start += length
    return chunk
  })
}

/**
 * The token-weighted mean of vectors (weights: each part's tokens; all zero → plain mean), in
 * Float32. The parts are taken as Float32, as the ledger keeps answers: a fresh run (the service's
 * values) and a rerun (the ledger's) then give the same vector to the bit, and the output and the
 * store with it. Summed in part order in double precision, rounded once at the end.
 */
export const weightedMean = (vectors: ReadonlyArray<VectorValues>, weights: ReadonlyArray<number>): Array<number> => {
  const total = weights.reduce((a, b) => a + b, 0)
  const w = total > 0 ? weights.map((x) => x / total) : weights.map(() => 1 / weights.length)
  const out = new Array<number>(vectors[0]!.length).fill(0)
  vectors.forEach((v, i) => {
    for (let d = 0; d < v.length; d++) out[d]! += Math.fround(v[d]!) * w[i]!
  })
  for (let d = 0; d < out.length; d++) out[d] = Math.fround(out[d]!)
  return out
}

/** The service refused the input for its length (before sending, or with a 400). */
const tooLong = (e: ServiceError): boolean =>
  (e._tag === "InvalidRequestError" && e.field === "input" && /token/i.test(e.limit)) ||
  (e._tag === "BadRequestError" && /token|too long|length/i.test(e.serviceMessage))

interface Embedded {
  readonly value: VectorValues
  readonly tokens: number
}

/** One text's vector; a text refused for its length is halved and its halves merged. */
const embedText = (
  svc: TextService,
  input: { readonly text: string; readonly task_type: EmbeddingTaskType; readonly model: string },
  depth = 0
): Effect.Effect<Embedded, ServiceError> =>
  svc.embed({ input: input.text, task_type: input.task_type, model: input.model }).pipe(
    Effect.map((r) => ({ value: r.data[0].embedding, tokens: r.usage.prompt_tokens })),
    Effect.catchIf(
      (e) => tooLong(e) && depth < MAX_SPLIT_DEPTH,
      (e) => {
        const halves = chunkText(input.text, Math.ceil(countTokens(input.text) / 2), countTokens)
        if (halves.length < 2) return Effect.fail(e)
        return Effect.forEach(halves, (text) => embedText(svc, { ...input, text }, depth + 1)).pipe(
          Effect.map((parts) => ({
            value: weightedMean(
              parts.map((p) => p.value),
              parts.map((p) => p.tokens)
            ),
            tokens: parts.reduce((a, p) => a + p.tokens, 0)
          }))
        )
      }
    )
  )

export const CHUNK_COLUMNS = {
  index: "chunk_index",
  start: "chunk_start",
  end: "chunk_end",
  text: "chunk_text"
} as const

export const embed = (options: EmbedOptions): Stage => {
  const model = options.model ?? Models.embedding
  const task_type = options.task_type ?? "RETRIEVAL_DOCUMENT"
  const long = options.long ?? "mean"
  const limit = Math.min(options.maxTokensPerCall ?? DEFAULT_EMBED_TOKENS, Limits.embeddingInputTokens)
  const vectorColumn = options.column ?? "embedding"
  const columns: Array<Column> = [column(vectorColumn, ColumnType.vector(Limits.embeddingDimension))]
  if (long === "chunks") {
    columns.push(
      column(CHUNK_COLUMNS.index, ColumnType.number),
      column(CHUNK_COLUMNS.start, ColumnType.number),
      column(CHUNK_COLUMNS.end, ColumnType.number),
      column(CHUNK_COLUMNS.text, ColumnType.string)
    )
  }

  // One parameters object for every request: its canonical JSON (a key's prefix) is computed once.
  const params = { task_type }
  const request = (chunk: Chunk, label: string): StageRequest<VectorValues> =>
    makeRequest({
      endpoint: "embeddings",
      model,
      params,
      text: chunk.text,
      label,
      answer: Float32Vector,
      send: (svc) => embedText(svc, { text: chunk.text, task_type, model })
    })

  const nullRow: Row = Object.fromEntries(columns.map((c) => [c.name, null]))

  return {
    name: "embed",
    reads: [options.field],
    columns,
    fanOut: long === "chunks",
    calls: [{ endpoint: "embeddings", model }],
    ...(options.when ? { when: options.when } : {}),
    prepare: (fields) => {
      const value = fields[options.field]
      if (value === undefined)
        return new StageInputError({ message: `field ${JSON.stringify(options.field)} is missing` })
      const read = fieldText(options.field, value)
      if (read !== null && typeof read !== "string") return read
      const text = read ?? ""
      if (text.trim() === "") return prepared<VectorValues>([], () => [nullRow])
      const all = embeddingChunks(text, limit)
      const chunks = long === "truncate" ? all.slice(0, 1) : all
      const requests = chunks.map((c, i) => request(c, `${options.field} chunk ${i + 1}/${chunks.length}`))
      const counts =
        all.length > 1 ? { embed_chunked: 1, ...(long === "truncate" ? { embed_truncated: 1 } : {}) } : undefined
      if (long === "chunks") {
        const rows = prepared(
          requests,
          (vectors) =>
            chunks.map((c, i) => ({
              [vectorColumn]: vectors[i],
              [CHUNK_COLUMNS.index]: i,
              [CHUNK_COLUMNS.start]: c.start,
              [CHUNK_COLUMNS.end]: c.end,
              [CHUNK_COLUMNS.text]: c.text
            })),
          counts
        )
        return { ...rows, placesAnswers: true }
      }
      // One chunk: the answer itself (stored once, referenced by the record); several: their mean.
      const one = prepared(
        requests,
        (vectors) => [
          {
            [vectorColumn]:
              vectors.length === 1
                ? vectors[0]
                : weightedMean(
                    vectors,
                    chunks.map((c) => c.tokens)
                  )
          }
        ],
        counts
      )
      return requests.length === 1 ? { ...one, placesAnswers: true } : one
    }
  }
}

export const embedStage = defineStageType({
  name: "embed",
  description:
    "one text field into a 1536-d vector (svc3-embedding); adds embedding (vector(1536)), and with long: chunks one row per chunk",
  options: Schema.Struct({
    field: Schema.NonEmptyString,
    task_type: Schema.optional(EmbeddingTaskType),
    model: Schema.optional(Schema.NonEmptyString),
    long: Schema.optional(LongPolicy),
    maxTokensPerCall: Schema.optional(Schema.Int.pipe(Schema.between(1, Limits.embeddingInputTokens))),
    column: Schema.optional(Schema.NonEmptyString)
  }),
  make: (options, when) => embed({ ...options, ...(when ? { when } : {}) })
})
