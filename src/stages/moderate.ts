/**
 * moderate: one or more text fields through svc3-guard. Text longer than one call takes is split
 * into chunks; a record is harmful if any part is, with the union of category codes. Output:
 * `<prefix>verdict` (safe | harmful | unparsed | empty: no text to judge, nothing sent), `<prefix>categories` ("T2,T9"), and
 * `<prefix>raw` (the guard's text when it could not be parsed).
 */
import { Effect, Schema } from "effect"
import { column, ColumnType } from "../pipeline/columns.ts"
import { Models } from "../service/limits.ts"
import { type CategoryCode, CategoryCodes, parseVerdict } from "../service/moderation.ts"
import { countTokens, surelyWithinTokens } from "../service/tokens.ts"
import { chunkText } from "./chunking.ts"
import type { Condition } from "../pipeline/condition.ts"
import { defineStageType, FieldList } from "../pipeline/stage-type.ts"
import { fieldText } from "./text-field.ts"
import { makeRequest, prepared, type Row, type Stage, StageInputError, type StageRequest } from "../pipeline/stage.ts"

export interface ModerateOptions {
  /** Text fields to judge (all of them; missing fields fail the record). */
  readonly fields: ReadonlyArray<string>
  readonly model?: string
  /** Tokens of text per guard call (the context length is not published; 4,000 leaves room). */
  readonly maxTokensPerCall?: number
  /** Prefix of the output columns. */
  readonly prefix?: string
  readonly when?: Condition
  /** Ask with `stream: true` (the verdict arrives as SSE; a cut stream is retried). */
  readonly stream?: boolean
}

const MAX_VERDICT_TOKENS = 64
/** Assembled rows kept by the guard's text (a few hundred bytes each). */
const ROWS_KEPT = 256
/** Records with no text to judge (the stage's counter, shown as `moderate empty N`). */
export const EMPTY = "moderate_empty"

export const moderate = (options: ModerateOptions): Stage => {
  const model = options.model ?? Models.guard
  const limit = options.maxTokensPerCall ?? 4000
  const prefix = options.prefix ?? "moderation_"
  const out = { verdict: `${prefix}verdict`, categories: `${prefix}categories`, raw: `${prefix}raw` }
  const params = { max_completion_tokens: MAX_VERDICT_TOKENS }

  const request = (text: string): StageRequest<string> =>
    makeRequest({
      endpoint: "chat",
      model,
      params,
      text,
      // The guard's text, parsed when the record is assembled (a parser fix applies to stored answers).
      answer: Schema.String,
      send: (svc) => {
        const input = {
          model,
          messages: [{ role: "user" as const, content: text }],
          max_completion_tokens: MAX_VERDICT_TOKENS
        }
        return (options.stream ? svc.chatStreamed(input) : svc.chat(input)).pipe(
          Effect.map((c) => ({ value: c.choices[0]?.message.content ?? "", tokens: c.usage.total_tokens }))
        )
      }
    })

  // A record judged in one call (nearly every one) has the row of its guard's text, and a run
  // meets few distinct texts ("safe", a handful of harmful codes): rows kept by text, a bounded
  // number, so a warm rerun does not parse the same verdict once per record. Rows are never changed.
  const byText = new Map<string, Row>()
  const assembleOne = (raw: string): ReadonlyArray<Row> => {
    let row = byText.get(raw)
    if (row === undefined) {
      row = assemble([raw])[0]!
      if (byText.size >= ROWS_KEPT) byText.clear()
      byText.set(raw, row)
    }
    return [row]
  }
  const assembleFirst = (answers: ReadonlyArray<string>) => assembleOne(answers[0]!)

  const assemble = (answers: ReadonlyArray<string>) => {
    const codes = new Set<CategoryCode>()
    const unparsed: Array<string> = []
    let harmful = false
    for (const raw of answers) {
      const verdict = parseVerdict(raw)
      if (verdict._tag === "Left") unparsed.push(raw)
      else if (verdict.right.verdict === "harmful") {
        harmful = true
        for (const c of verdict.right.categories) codes.add(c.code)
      }
    }
    return [
      {
        [out.verdict]: harmful ? "harmful" : unparsed.length > 0 ? "unparsed" : "safe",
        [out.categories]: CategoryCodes.filter((c) => codes.has(c)).join(","),
        [out.raw]: unparsed.join("\n---\n")
      }
    ]
  }

  return {
    name: "moderate",
    reads: options.fields,
    calls: [{ endpoint: "chat", model }],
    columns: [
      column(out.verdict, ColumnType.string),
      column(out.categories, ColumnType.string),
      column(out.raw, ColumnType.string)
    ],
    ...(options.when ? { when: options.when } : {}),
    prepare: (fields) => {
      const requests: Array<StageRequest<string>> = []
      for (const field of options.fields) {
        const value = fields[field]
        if (value === undefined) return new StageInputError({ message: `field ${JSON.stringify(field)} is missing` })
        const text = fieldText(field, value)
        if (text === null) continue
        if (typeof text !== "string") return text
        // Most texts are short: no tokenizing when their UTF-8 bytes are within the limit.
        const chunks = surelyWithinTokens(text, limit) ? [text] : chunkText(text, limit, countTokens)
        for (const chunk of chunks) if (chunk.trim() !== "") requests.push(request(chunk))
      }
      // Nothing to judge (null, empty or blank text): its own verdict, never "safe" without a request.
      if (requests.length === 0)
        return prepared(requests, () => [{ [out.verdict]: "empty", [out.categories]: "", [out.raw]: "" }], {
          [EMPTY]: 1
        })
      return prepared(requests, requests.length === 1 ? assembleFirst : assemble)
    }
  }
}

export const moderateStage = defineStageType({
  name: "moderate",
  description: "judge text columns with svc3-guard; adds moderation_verdict, moderation_categories, moderation_raw",
  options: Schema.Struct({
    fields: FieldList,
    model: Schema.optional(Schema.NonEmptyString),
    maxTokensPerCall: Schema.optional(Schema.Int.pipe(Schema.between(16, 8000))),
    prefix: Schema.optional(Schema.String),
    stream: Schema.optional(Schema.Boolean)
  }),
  make: (options, when) => moderate({ ...options, ...(when ? { when } : {}) })
})
