/**
 * The svc3-guard verdict (spec §2.7): 「安全」, or 「有害」, a line break and category codes
 * separated by ", ". Anything else is a ModerationParseError that keeps the raw text.
 */
import { Either } from "effect"
import { ModerationParseError } from "./errors.ts"

export interface Category {
  readonly code: CategoryCode
  /** The service's own (Japanese) name. */
  readonly name: string
  /** An English gloss. */
  readonly gloss: string
}

export const CategoryCodes = ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11", "T12"] as const
export type CategoryCode = (typeof CategoryCodes)[number]

export const Categories: Readonly<Record<CategoryCode, Category>> = {
  T1: { code: "T1", name: "過激な性的描写", gloss: "extreme sexual depiction" },
  T2: { code: "T2", name: "過激な暴力描写", gloss: "extreme violent depiction" },
  T3: { code: "T3", name: "差別的表現", gloss: "discriminatory expression" },
  T4: { code: "T4", name: "有害表現", gloss: "harmful expression" },
  T5: { code: "T5", name: "AIへの過剰な信頼", gloss: "excessive trust in AI" },
  T6: { code: "T6", name: "個人情報漏洩", gloss: "leak of personal information" },
  T7: { code: "T7", name: "組織情報漏洩", gloss: "leak of organization information" },
  T8: { code: "T8", name: "違法行為の幇助", gloss: "aiding illegal acts" },
  T9: { code: "T9", name: "危険行為の幇助", gloss: "aiding dangerous acts" },
  T10: { code: "T10", name: "悪意ある情報拡散", gloss: "malicious spreading of information" },
  T11: { code: "T11", name: "専門分野での誤情報", gloss: "misinformation in specialist fields" },
  T12: { code: "T12", name: "虚偽情報", gloss: "false information" }
}

export const isCategoryCode = (s: string): s is CategoryCode => Object.hasOwn(Categories, s)

export const SAFE = "安全"
export const HARMFUL = "有害"

export type Verdict =
  | { readonly verdict: "safe"; readonly categories: ReadonlyArray<Category>; readonly raw: string }
  | { readonly verdict: "harmful"; readonly categories: ReadonlyArray<Category>; readonly raw: string }

/** Formats a verdict exactly as the service writes it (used by the emulator). */
export const formatVerdict = (codes: ReadonlyArray<CategoryCode>): string =>
  codes.length === 0 ? SAFE : `${HARMFUL}\n${codes.join(", ")}`

/**
 * Parses guard output. Tolerates surrounding whitespace, CRLF and a comma without a space;
 * rejects unknown codes, duplicates, a harmful verdict without codes and any other text.
 */
export const parseVerdict = (raw: string): Either.Either<Verdict, ModerationParseError> => {
  const text = raw.replace(/\r\n/g, "\n").trim()
  if (text === SAFE) return Either.right({ verdict: "safe", categories: [], raw })
  const [head, ...rest] = text.split("\n")
  if (head?.trim() !== HARMFUL) {
    return Either.left(new ModerationParseError({ raw, detail: `expected ${SAFE} or ${HARMFUL}` }))
  }
  const codeLine = rest.join("\n").trim()
  if (codeLine === "") {
    return Either.left(new ModerationParseError({ raw, detail: "harmful verdict without category codes" }))
  }
  const codes = codeLine.split(",").map((c) => c.trim())
  const categories: Array<Category> = []
  for (const code of codes) {
    if (!isCategoryCode(code)) {
      return Either.left(new ModerationParseError({ raw, detail: `unknown category code ${JSON.stringify(code)}` }))
    }
    if (categories.some((c) => c.code === code)) {
      return Either.left(new ModerationParseError({ raw, detail: `duplicate category code ${code}` }))
    }
    categories.push(Categories[code])
  }
  return Either.right({ verdict: "harmful", categories, raw })
}
