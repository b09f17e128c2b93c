/** The emulated svc3-guard: flags the lexicon's terms and writes the verdict exactly as §2.7 says. */
import { type CategoryCode, CategoryCodes, formatVerdict } from "../../service/moderation.ts"
import { GuardLexicon } from "./guard-lexicon.ts"

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const matchers: ReadonlyArray<{ code: CategoryCode; ja: ReadonlyArray<string>; en: RegExp }> = CategoryCodes.map((code) => ({
  code,
  ja: GuardLexicon[code].ja.map((t) => t.normalize("NFKC").toLowerCase()),
  en: new RegExp(`\\b(?:${GuardLexicon[code].en.map(escape).join("|")})\\b`, "i")
}))

/** The category codes `text` triggers, in code order. */
export const judge = (text: string): Array<CategoryCode> => {
  const normalized = text.normalize("NFKC").toLowerCase()
  return matchers.filter((m) => m.ja.some((t) => normalized.includes(t)) || m.en.test(normalized)).map((m) => m.code)
}

export const guardVerdict = (text: string): string => formatVerdict(judge(text))
