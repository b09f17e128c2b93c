/**
 * moderate: one or more text fields through svc3-guard. Text longer than one call takes is split
 * into chunks; a record is harmful if any part is, with the union of category codes. Output:
 * `<prefix>verdict` (safe | harmful | unparsed), `<prefix>categories` ("T2,T9"), and
 * `<prefix>raw` (the guard's text when it could not be parsed).
 */
import { Effect } from "effect"
import { Models } from "../service/limits.ts"
import { type CategoryCode, CategoryCodes, parseVerdict } from "../service/moderation.ts"
import { countTokens } from "../service/tokens.ts"
import { chunkText } from "./chunking.ts"
import { type Fields, type Stage, StageInputError, type StageRequest } from "../engine/stage.ts"

export interface ModerateOptions {
  /** Text fields to judge (all of them; missing fields fail the record). */
  readonly fields: ReadonlyArray<string>
  readonly model?: string
  /** Tokens of text per guard call (the context length is not published; 4,000 leaves room). */
  readonly maxTokensPerCall?: number
  /** Prefix of the output columns. */
  readonly prefix?: string
  readonly when?: (fields: Fields) => boolean
  /** Ask with `stream: true` (the verdict arrives as SSE; a cut stream is retried). */
  readonly stream?: boolean
}

const MAX_VERDICT_TOKENS = 64

export const moderate = (options: ModerateOptions): Stage => {
  const model = options.model ?? Models.guard
  const limit = options.maxTokensPerCall ?? 4000
  const prefix = options.prefix ?? "moderation_"
  const out = { verdict: `${prefix}verdict`, categories: `${prefix}categories`, raw: `${prefix}raw` }
  const params = { max_completion_tokens: MAX_VERDICT_TOKENS }

  const request = (text: string): StageRequest => ({
    endpoint: "chat",
    model,
    params,
    text,
    send: (svc) => {
      const input = { model, messages: [{ role: "user" as const, content: text }], max_completion_tokens: MAX_VERDICT_TOKENS }
      return (options.stream ? svc.chatStreamed(input) : svc.chat(input)).pipe(
        Effect.map((c) => ({ value: c.choices[0]?.message.content ?? "", tokens: c.usage.total_tokens }))
      )
    }
  })

  return {
    name: "moderate",
    reads: options.fields,
    outputs: [out.verdict, out.categories, out.raw],
    ...(options.when ? { when: options.when } : {}),
    requests: (fields) => {
      const requests: Array<StageRequest> = []
      for (const field of options.fields) {
        const value = fields[field]
        if (value === undefined) return new StageInputError(`field ${JSON.stringify(field)} is missing`)
        if (value === null) continue
        const text = typeof value === "string" ? value : String(value)
        for (const chunk of chunkText(text, limit, countTokens)) if (chunk.trim() !== "") requests.push(request(chunk))
      }
      return requests
    },
    combine: (_fields, answers) => {
      const codes = new Set<CategoryCode>()
      const unparsed: Array<string> = []
      let harmful = false
      for (const answer of answers) {
        const raw = typeof answer === "string" ? answer : JSON.stringify(answer)
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
  }
}
