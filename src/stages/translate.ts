/**
 * translate: one or several text fields between Japanese and English (spec §4.6).
 * - Direction: `to` is required; `from` is `ja`, `en` or `auto` (default: per record and field,
 *   by script, see language.ts). Text already in the target language, or with no letters, is
 *   passed through unchanged and counted (`translate_skipped`), not sent.
 * - Text over 5,000 code points is split (translation-chunking.ts); each chunk is its own request
 *   and ledger entry, so a crash mid-record loses no finished chunk. The translations are joined
 *   with the source's own whitespace between chunks (not sent); where the source had none (a
 *   Japanese sentence end) and the target is English, one space.
 * - Empty or whitespace-only text is not sent; the output is the same value (null stays null).
 * - Protected spans (`protect`: fenced code blocks, inline code, URLs, e-mail addresses and
 *   placeholders by default, plus the job's regexes) are not sent and come back byte-identical
 *   (protected-chunks.ts); one whose token the translator dropped is appended to its chunk and
 *   named in the warnings column (`moved`).
 * - Tokens ({name}, %s, ${x}, {{x}}, URLs, e-mail addresses, `code`, numbers) present in the source
 *   and missing from the translation are named in the warnings column (`lost`), each once, cut to
 *   80 characters (placeholders.ts).
 */
import { Effect, Schema } from "effect"
import { column, ColumnType } from "../pipeline/columns.ts"
import type { Condition } from "../pipeline/condition.ts"
import { makeRequest, prepared, type Row, type Stage, StageInputError, type StageRequest } from "../pipeline/stage.ts"
import { Lang } from "../service/schemas/endpoints.ts"
import { detectLanguage } from "./language.ts"
import { listTokens, lostPlaceholders } from "./placeholders.ts"
import { defineStageType, FieldList } from "../pipeline/stage-type.ts"
import { chunkProtected, type ProtectedChunks, restoreSpans } from "./protected-chunks.ts"
import { defaultProtect, Protect, protectedSpans } from "./protected-spans.ts"
import { fieldText } from "./text-field.ts"

export type Language = "ja" | "en"

export interface TranslateOptions {
  readonly fields: ReadonlyArray<string>
  readonly to: Language
  readonly from?: Language | "auto"
  /** Output column per field; default `<field>_<to>` (body → body_en). */
  readonly columns?: Readonly<Record<string, string>>
  /** The warnings column; default `translate_warnings`. */
  readonly warningsColumn?: string
  /** Spans never sent (default: every kind, no patterns). */
  readonly protect?: Protect
  readonly when?: Condition
}

/** The limiter key of translate (no model is selected, §4.6). */
const MODEL = "translate"
export const SKIPPED = "translate_skipped"

/** One field's plan: passed through as is, or chunks to translate. */
type FieldPlan =
  | { readonly _tag: "Keep"; readonly value: unknown }
  | { readonly _tag: "Translate"; readonly source: string; readonly parts: ProtectedChunks; readonly first: number }

/** Interleaves translated chunks with the source's separators (a space where English needs one). */
const rejoin = (parts: ProtectedChunks, translated: ReadonlyArray<string>, to: Language): string => {
  const { separators } = parts
  let out = separators[0]!
  for (let i = 0; i < translated.length; i++) {
    if (i > 0) out += separators[i] === "" && to === "en" ? " " : separators[i]!
    out += translated[i]
  }
  return out + separators[translated.length]!
}

export const translate = (options: TranslateOptions): Stage => {
  const from = options.from ?? "auto"
  const target = (field: string) => options.columns?.[field] ?? `${field}_${options.to}`
  const warnings = options.warningsColumn ?? "translate_warnings"
  const spansOf = protectedSpans(options.protect ?? defaultProtect)

  // One parameters object per source language: its canonical JSON (a key's prefix) is computed once.
  const paramsBySource = new Map<Language, { readonly source_lang: Language; readonly target_lang: string }>()
  const paramsOf = (source: Language) => {
    let params = paramsBySource.get(source)
    if (params === undefined) paramsBySource.set(source, (params = { source_lang: source, target_lang: options.to }))
    return params
  }
  const request = (text: string, source: Language, label: string): StageRequest<string> =>
    makeRequest({
      endpoint: "translate",
      model: MODEL,
      params: paramsOf(source),
      text,
      label,
      answer: Schema.String,
      send: (svc) =>
        svc
          .translate({ text, source_lang: source, target_lang: options.to })
          .pipe(Effect.map((r) => ({ value: r.translated_text, tokens: 0 })))
    })

  return {
    name: "translate",
    reads: options.fields,
    calls: [{ endpoint: "translate", model: MODEL }],
    columns: [...options.fields.map((f) => column(target(f), ColumnType.string)), column(warnings, ColumnType.string)],
    namedBy: {
      ...Object.fromEntries(options.fields.map((f) => [target(f), `columns.${f}`])),
      [warnings]: "warningsColumn"
    },
    ...(options.when ? { when: options.when } : {}),
    prepare: (fields) => {
      const plans: Array<[string, FieldPlan]> = []
      const requests: Array<StageRequest<string>> = []
      let skipped = 0
      for (const field of options.fields) {
        const value = fields[field]
        if (value === undefined) return new StageInputError({ message: `field ${JSON.stringify(field)} is missing` })
        const read = fieldText(field, value)
        if (read !== null && typeof read !== "string") return read
        const text = read ?? ""
        if (text.trim() === "") {
          plans.push([field, { _tag: "Keep", value }])
          continue
        }
        const source = from === "auto" ? detectLanguage(text) : from
        if (source === undefined || source === options.to) {
          skipped++
          plans.push([field, { _tag: "Keep", value }])
          continue
        }
        const parts = chunkProtected(text, spansOf(text))
        plans.push([field, { _tag: "Translate", source: text, parts, first: requests.length }])
        parts.chunks.forEach((chunk, i) =>
          requests.push(request(chunk.text, source, `${field} chunk ${i + 1}/${parts.chunks.length}`))
        )
      }
      const assemble = (answers: ReadonlyArray<string>): ReadonlyArray<Row> => {
        const row: Record<string, unknown> = {}
        const lost: Array<string> = []
        for (const [field, plan] of plans) {
          if (plan._tag === "Keep") {
            row[target(field)] = plan.value
            continue
          }
          const moved: Array<string> = []
          const restored = plan.parts.chunks.map((chunk, i) => {
            const r = restoreSpans(chunk, answers[plan.first + i]!)
            moved.push(...r.moved)
            return r.text
          })
          const translated = rejoin(plan.parts, restored, options.to)
          row[target(field)] = translated
          const missing = lostPlaceholders(plan.source, translated)
          const problems = [
            ...(missing.length > 0 ? [`lost ${listTokens(missing)}`] : []),
            ...(moved.length > 0 ? [`moved to a chunk's end ${listTokens(moved)}`] : [])
          ]
          if (problems.length > 0) lost.push(`${field}: ${problems.join("; ")}`)
        }
        row[warnings] = lost.length > 0 ? lost.join("; ") : null
        return [row]
      }
      return prepared(requests, assemble, skipped > 0 ? { [SKIPPED]: skipped } : undefined)
    }
  }
}

export const translateStage = defineStageType({
  name: "translate",
  description:
    "translate text columns between Japanese and English; adds <field>_<to> per field and translate_warnings",
  options: Schema.Struct({
    fields: FieldList,
    to: Lang,
    from: Schema.optional(Schema.Union(Lang, Schema.Literal("auto"))),
    columns: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.NonEmptyString })),
    warningsColumn: Schema.optional(Schema.NonEmptyString),
    protect: Schema.optional(Protect)
  }),
  make: (options, when) => translate({ ...options, ...(when ? { when } : {}) })
})
