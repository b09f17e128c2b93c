/**
 * Extraction with a tool: the model is asked for the date and amount of a free-text record
 * (an invoice line, a receipt, a support message) as JSON that conforms to a schema; on its way it
 * may call `normalise_date_amount`, a function run here that turns what it found ("2026年3月5日",
 * "March 5, 2026", "¥3,200", "$1,200.50") into ISO dates and numbers. The round trip is the
 * spec's §4.2; the answer is validated against the schema (§2.4) and its properties become columns
 * (extract_date, extract_amount, extract_currency); a text with no amount gets null amount and currency.
 */
import { Effect } from "effect"
import { definePreset } from "../src/pipeline/preset.ts"
import { generate, type GenerateTool } from "../src/stages/generate.ts"

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december"
]
const pad = (n: number) => String(n).padStart(2, "0")

/** An ISO date (YYYY-MM-DD) from common Japanese and English spellings; null when none is found. */
export const normaliseDate = (text: string): string | null => {
  const t = text.normalize("NFKC").toLowerCase()
  let m = /(\d{4})\s*[年/.-]\s*(\d{1,2})\s*[月/.-]\s*(\d{1,2})/.exec(t)
  if (m) return `${m[1]}-${pad(Number(m[2]))}-${pad(Number(m[3]))}`
  m = new RegExp(
    `(${MONTHS.join("|")}|${MONTHS.map((x) => x.slice(0, 3)).join("|")})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})`
  ).exec(t)
  if (m) return `${m[3]}-${pad(MONTHS.findIndex((x) => x.startsWith(m![1]!.slice(0, 3))) + 1)}-${pad(Number(m[2]))}`
  m = new RegExp(
    `(\\d{1,2})\\s+(${MONTHS.join("|")}|${MONTHS.map((x) => x.slice(0, 3)).join("|")})\\.?\\s+(\\d{4})`
  ).exec(t)
  if (m) return `${m[3]}-${pad(MONTHS.findIndex((x) => x.startsWith(m![2]!.slice(0, 3))) + 1)}-${pad(Number(m[1]))}`
  return null
}

/** An amount and its currency from "¥3,200", "3,200円", "$1,200.50", "EUR 40"; null when none. */
export const normaliseAmount = (text: string): { readonly amount: number; readonly currency: string } | null => {
  const t = text.normalize("NFKC")
  const patterns: ReadonlyArray<[RegExp, string]> = [
    [/¥\s*([\d,]+(?:\.\d+)?)/, "JPY"],
    [/([\d,]+(?:\.\d+)?)\s*円/, "JPY"],
    [/\$\s*([\d,]+(?:\.\d+)?)/, "USD"],
    [/€\s*([\d,]+(?:\.\d+)?)/, "EUR"],
    [/\b(?:EUR|eur)\s*([\d,]+(?:\.\d+)?)/, "EUR"],
    [/£\s*([\d,]+(?:\.\d+)?)/, "GBP"]
  ]
  for (const [re, currency] of patterns) {
    const m = re.exec(t)
    if (m) return { amount: Number(m[1]!.replaceAll(",", "")), currency }
  }
  return null
}

export const normaliseTool: GenerateTool = {
  name: "normalise_date_amount",
  description:
    "Normalise a date and an amount of money as written in the text into an ISO date and a number with its currency",
  parameters: {
    type: "object",
    properties: { date_text: { type: "string" }, amount_text: { type: "string" } },
    required: ["date_text", "amount_text"]
  },
  handler: (args) =>
    Effect.sync(() => {
      const a = (typeof args === "object" && args !== null ? args : {}) as {
        date_text?: unknown
        amount_text?: unknown
      }
      const amount = normaliseAmount(String(a.amount_text ?? ""))
      return JSON.stringify({
        date: normaliseDate(String(a.date_text ?? "")),
        amount: amount?.amount ?? null,
        currency: amount?.currency ?? null
      })
    })
}

export const extractionSchema = {
  type: "object",
  properties: {
    date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "ISO date" },
    // null when the text states no amount: an honest "none" rather than an invented number.
    amount: { type: ["number", "null"], minimum: 0 },
    currency: { type: ["string", "null"], enum: ["JPY", "USD", "EUR", "GBP", null] }
  },
  required: ["date", "amount", "currency"],
  additionalProperties: false
} as const

export default definePreset({
  name: "extract",
  description:
    "Extract the date and amount of a free-text record as schema-validated JSON (svc3-mini, with a normalising tool); adds extract_json, extract_date, extract_amount, extract_currency",
  inputs: { text: "the column holding the free text" },
  build: (fields) => {
    const stage = generate({
      prefix: "extract_",
      system:
        "You extract structured data. Call normalise_date_amount with the date and the amount exactly as written, then answer with its result.",
      prompt: `Find the date and the amount of money in this text:\n\n{{${fields.text![0]!}}}`,
      response_format: { type: "json_schema", name: "date_amount", schema: extractionSchema, strict: true },
      tools: [normaliseTool],
      maxToolRounds: 1,
      validationAttempts: 4,
      temperature: 0
    })
    // A preset is code: options it cannot take are a bug here, not a user error.
    if (typeof stage === "string") throw new Error(`pipelines/extract.ts: ${stage}`)
    return [stage]
  }
})
