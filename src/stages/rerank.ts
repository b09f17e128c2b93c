/**
 * rerank: orders a record's candidate texts by relevance to its query (spec §4.4, §2.8).
 * - Candidates: an array field (JSONL), a JSON-array string, or a string split on `separator`.
 * - The service takes 1 to 20 documents per call: more are sent in batches of at most 20, formed
 *   in candidate order (so the same record always makes the same requests), each its own ledger
 *   entry; the scores are merged across batches (a pair's score varies by ~1e-5 with the batch,
 *   §2.8: enough to order by, which is all scores are for).
 * - A candidate whose pair with the query is over 8,000 tokens is not sent: it is named in the
 *   warnings column and left out of the ranking, never dropped silently. Empty candidates too.
 * - Output: `<prefix>ranked` (json) `[{index, score, text}]` best first, trimmed to `top_n`;
 *   `<prefix>top` (the best candidate's text); `<prefix>warnings`.
 */
import { Effect, Schema } from "effect"
import type { Condition } from "../pipeline/condition.ts"
import { makeRequest, prepared, type Stage, StageInputError, type StageRequest } from "../pipeline/stage.ts"
import { column, ColumnType } from "../pipeline/columns.ts"
import type { TextService } from "../service/client.ts"
import type { ServiceError } from "../service/errors.ts"
import { Limits, Models } from "../service/limits.ts"
import { RerankTaskType } from "../service/schemas/endpoints.ts"
import { countTokens, withinTokens } from "../service/tokens.ts"
import { defineStageType } from "../pipeline/stage-type.ts"
import { fieldText } from "./text-field.ts"

export interface RerankOptions {
  /** The field holding the query. */
  readonly query: string
  /** The field holding the candidates. */
  readonly candidates: string
  /** For a string field that is not a JSON array: what separates the candidates (e.g. "\n"). */
  readonly separator?: string
  readonly task_type?: RerankTaskType
  readonly query_instruction?: string
  readonly model?: string
  /** Keep the best N (default: all). */
  readonly top_n?: number
  /** Prefix of the output columns (default `rerank_`). */
  readonly prefix?: string
  readonly when?: Condition
}

export interface Ranked {
  /** Zero-based index into the record's candidates. */
  readonly index: number
  readonly score: number
  readonly text: string
}

/** The scores of one batch, in the batch's document order (what the ledger stores). */
const BatchScores = Schema.Array(Schema.Number)

/** Batches of at most 20, in order. */
export const batches = <A>(
  items: ReadonlyArray<A>,
  size: number = Limits.rerankMaxDocuments
): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** One call's scores, in the order of `documents`. */
export const scoreBatch = (
  svc: TextService,
  input: {
    readonly query: string
    readonly documents: ReadonlyArray<string>
    readonly model: string
    readonly task_type?: RerankTaskType | undefined
    readonly query_instruction?: string | undefined
  }
): Effect.Effect<{ readonly value: ReadonlyArray<number>; readonly tokens: number }, ServiceError> =>
  svc
    .rerank({
      query: input.query,
      documents: input.documents,
      model: input.model,
      ...(input.task_type ? { task_type: input.task_type } : {}),
      ...(input.query_instruction !== undefined ? { query_instruction: input.query_instruction } : {})
    })
    .pipe(
      Effect.map((r) => {
        const scores = new Array<number>(input.documents.length).fill(Number.NaN)
        for (const s of r.data[0].result)
          if (s.document_id >= 0 && s.document_id < scores.length) scores[s.document_id] = s.score
        return { value: scores, tokens: r.usage.total_tokens }
      })
    )

/** Merged scores → candidates best first (ties: the earlier candidate first). */
export const rank = (
  items: ReadonlyArray<{ readonly index: number; readonly text: string }>,
  scores: ReadonlyArray<number>
): Array<Ranked> =>
  items
    .map((c, i) => ({ index: c.index, score: scores[i]!, text: c.text }))
    .filter((r) => !Number.isNaN(r.score))
    .sort((a, b) => b.score - a.score || a.index - b.index)

/** The candidates of a field value, or why it has none readable. */
export const readCandidates = (value: unknown, separator: string | undefined): ReadonlyArray<string> | string => {
  if (value === null || value === undefined) return []
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v)))
  if (typeof value !== "string") return `expected a list of candidates, got ${typeof value}`
  const text = value.trim()
  if (separator === undefined || text.startsWith("[")) {
    if (text === "") return []
    try {
      const parsed: unknown = JSON.parse(text)
      if (Array.isArray(parsed)) return parsed.map((v) => (typeof v === "string" ? v : JSON.stringify(v)))
    } catch {
      // fall through
    }
    if (separator === undefined) return "expected a JSON array of strings (or set separator)"
  }
  return value.split(separator!).filter((s) => s.trim() !== "")
}

export const rerank = (options: RerankOptions): Stage => {
  const model = options.model ?? Models.rerank
  const prefix = options.prefix ?? "rerank_"
  const out = { ranked: `${prefix}ranked`, top: `${prefix}top`, warnings: `${prefix}warnings` }
  const params = { task_type: options.task_type ?? null, query_instruction: options.query_instruction ?? null }

  const request = (
    query: string,
    documents: ReadonlyArray<string>,
    label: string
  ): StageRequest<ReadonlyArray<number>> =>
    makeRequest({
      endpoint: "rerank",
      model,
      params: { ...params, documents },
      text: query,
      label,
      answer: BatchScores,
      send: (svc) =>
        scoreBatch(svc, {
          query,
          documents,
          model,
          task_type: options.task_type,
          query_instruction: options.query_instruction
        })
    })

  return {
    name: "rerank",
    reads: [options.query, options.candidates],
    calls: [{ endpoint: "rerank", model }],
    columns: [
      column(out.ranked, ColumnType.json),
      column(out.top, ColumnType.string),
      column(out.warnings, ColumnType.string)
    ],
    ...(options.when ? { when: options.when } : {}),
    prepare: (fields) => {
      const queryValue = fields[options.query]
      if (queryValue === undefined)
        return new StageInputError({ message: `field ${JSON.stringify(options.query)} is missing` })
      if (fields[options.candidates] === undefined)
        return new StageInputError({ message: `field ${JSON.stringify(options.candidates)} is missing` })
      const read = fieldText(options.query, queryValue)
      if (read !== null && typeof read !== "string") return read
      const query = read ?? ""
      const all = readCandidates(fields[options.candidates], options.separator)
      if (typeof all === "string")
        return new StageInputError({ message: `field ${JSON.stringify(options.candidates)}: ${all}` })
      if (query.trim() === "")
        return new StageInputError({
          message: `field ${JSON.stringify(options.query)} is empty: nothing to rank against`
        })
      const queryTokens = countTokens(query)
      const warnings: Array<string> = []
      const sendable: Array<{ index: number; text: string }> = []
      all.forEach((text, index) => {
        if (text.trim() === "") warnings.push(`candidate ${index}: empty, not ranked`)
        else if (!withinTokens(text, Limits.rerankPairTokens - queryTokens)) {
          warnings.push(
            `candidate ${index}: query plus candidate is ${queryTokens + countTokens(text)} tokens (over ${Limits.rerankPairTokens}), not ranked`
          )
        } else sendable.push({ index, text })
      })
      const groups = batches(sendable)
      const requests = groups.map((g, i) =>
        request(
          query,
          g.map((c) => c.text),
          `candidates batch ${i + 1}/${groups.length}`
        )
      )
      return prepared(
        requests,
        (answers) => {
          const ranked = rank(sendable, answers.flat())
          const kept = options.top_n === undefined ? ranked : ranked.slice(0, options.top_n)
          return [
            {
              [out.ranked]: kept,
              [out.top]: ranked[0]?.text ?? null,
              [out.warnings]: warnings.length > 0 ? warnings.join("; ") : null
            }
          ]
        },
        warnings.length > 0 ? { rerank_excluded: warnings.length } : undefined
      )
    }
  }
}

export const rerankStage = defineStageType({
  name: "rerank",
  description:
    "orders a candidate list by relevance to a query (svc3-rerank, batches of 20); adds rerank_ranked (json), rerank_top, rerank_warnings",
  options: Schema.Struct({
    query: Schema.NonEmptyString,
    candidates: Schema.NonEmptyString,
    separator: Schema.optional(Schema.NonEmptyString),
    task_type: Schema.optional(RerankTaskType),
    query_instruction: Schema.optional(Schema.NonEmptyString),
    model: Schema.optional(Schema.NonEmptyString),
    top_n: Schema.optional(Schema.Int.pipe(Schema.positive())),
    prefix: Schema.optional(Schema.String)
  }).pipe(
    Schema.filter((o) =>
      o.task_type === "CUSTOMIZE" && o.query_instruction === undefined
        ? {
            path: ["query_instruction"],
            message: "required when task_type is CUSTOMIZE (the service refuses CUSTOMIZE without it)"
          }
        : true
    )
  ),
  make: (options, when) => rerank({ ...options, ...(when ? { when } : {}) })
})
