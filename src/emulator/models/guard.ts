/**
 * The emulated svc3-guard: a small rule model (keywords in guard-lexicon.ts, phrase patterns in
 * guard-phrases.ts) judged sentence by sentence, plus detectors of personal data written as the
 * data itself (T6): Luhn-valid card numbers, phone numbers, an e-mail address together with a
 * postal address, マイナンバー-like 12-digit numbers and US social security numbers. Writes the verdict exactly as §2.7 says.
 */
import { type CategoryCode, CategoryCodes, formatVerdict } from "../../service/moderation.ts"
import { Damping, GuardRules, IntentJa } from "./guard-lexicon.ts"
import { GuardColloquial } from "./guard-colloquial.ts"
import { GuardPhrases } from "./guard-phrases.ts"

/** Katakana → hiragana, so a term matches whichever kana it is written in. */
const foldKana = (s: string) => s.replace(/[\u30a1-\u30f6]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60))
const normalize = (s: string) => foldKana(s.normalize("NFKC").toLowerCase())

// Global ("g") and compiled once: the rules run per request, and building these costs more than matching.
const wordRegex = (sources: ReadonlyArray<string>) => new RegExp(`(?<![\\w-])(?:${sources.join("|")})(?![\\w-])`, "gu")
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const matchers: ReadonlyArray<{ code: CategoryCode; en: RegExp; ja: RegExp }> = CategoryCodes.map((code) => ({
  code,
  en: wordRegex([...GuardRules[code].en, ...GuardPhrases[code].en, ...GuardColloquial[code].en]),
  // Lexicon terms are literal; phrase patterns are regular expressions (normalised alike).
  ja: new RegExp(
    [
      ...GuardRules[code].ja.map((t) => escape(normalize(t))),
      ...[...GuardPhrases[code].ja, ...GuardColloquial[code].ja].map(normalize)
    ].join("|"),
    "gu"
  )
}))
const intentJa = IntentJa.map((i) => ({ code: i.code, re: new RegExp(normalize(i.pattern), "gu") }))
/** How a damping word reaches a hit: from either side, only from before it, or also from inside. */
type Reach = "around" | "before" | "framing"
// English in one pass: the named group that matched says the reach.
const dampingEn = wordRegex([
  `(?<around>${Damping.en.join("|")})`,
  `(?<before>${Damping.enBefore.join("|")})`,
  `(?<framing>${Damping.enFraming.join("|")})`
])
// Japanese puts the damping word after what it governs (偽造を防止): kept as it was, any reach.
const dampingJa = new RegExp(Damping.ja.map((t) => escape(normalize(t))).join("|"), "gu")

/** Every match of the global `re` in `s`, as [start, end) (matchAll works on a copy of `re`). */
const spans = (re: RegExp, s: string): Array<readonly [number, number]> =>
  [...s.matchAll(re)].map((m) => [m.index, m.index + m[0].length] as const)

interface DampingSpan {
  readonly reach: Reach
  readonly at: readonly [number, number]
}

const LATIN = /[a-z]/u
const JAPANESE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u

/** What ends a damping word's reach: a clause break, or a conjunction opening another clause. */
const CLAUSE_BREAK = /[,;:!?()「」『』、，。！？—–]|\b(?:and|but|then|so|or|because|while|after|before|now)\b/u

/**
 * Damping modifies the phrase it governs, not the whole sentence ("report counterfeit bills",
 * 偽造を防止, "the history of the massacre"): a hit is damped when a damping word is in the same
 * clause with at most a few words (or, in Japanese, characters) between them. A damping word
 * inside the harmful phrase is part of it ("sneak drugs past security", "immigrants who get
 * reported … are animals"), except a framing word (deniers claim it was a hoax); some damp only
 * what follows them ("the myth that …", not "… is a myth"; "security training on …", not
 * "… through customs security").
 */
const dampedAt = (s: string, damping: ReadonlyArray<DampingSpan>, hit: readonly [number, number]) =>
  damping.some(({ reach, at: [ds, de] }) => {
    // Inside the phrase: part of it, unless framing; overlapping its start: governs it from before.
    if (ds >= hit[0] && de <= hit[1]) return reach === "framing"
    if (ds < hit[0] && de > hit[0]) return true
    if (reach === "before" && ds >= hit[1]) return false
    const between = de <= hit[0] ? s.slice(de, hit[0]) : s.slice(hit[1], ds)
    return !CLAUSE_BREAK.test(between) && between.length <= 24 && between.trim().split(/\s+/u).length <= 4
  })

/** Threats are threats whatever else the sentence says. */
const UNDAMPED: ReadonlySet<CategoryCode> = new Set(["T4"])

// ---- personal data written as data (T6) -------------------------------------------------------

const luhn = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

const CARD = /(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)/g
const PHONE =
  /(?<![\d-])(?:\+?81[- ]?\d{1,4}[- ]?\d{1,4}[- ]?\d{4}|0\d{1,4}-\d{1,4}-\d{4}|0[789]0\d{8}|\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}|\+1[ .-]?\d{3}[ .-]\d{3}[ .-]\d{4})(?![\d-])/
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/
const ADDRESS =
  /\d+\s+\w+(?:\s\w+)?\s+(?:street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd)\b|(?:都|道|府|県).{1,8}(?:市|区|町|村).{0,12}\d+[-－丁目]|〒\s?\d{3}-\d{4}/iu
const MY_NUMBER = /(?<![\d-])\d{4}[ -]?\d{4}[ -]?\d{4}(?![\d-])/
const SSN = /(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])/

/** Personal data in `text` (the original text: digits and separators as written). */
export const personalData = (text: string): boolean => {
  const t = text.normalize("NFKC")
  for (const m of t.matchAll(CARD)) {
    const digits = m[0].replace(/\D/g, "")
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits)) return true
  }
  if (PHONE.test(t) || SSN.test(t)) return true
  if (EMAIL.test(t) && ADDRESS.test(t)) return true
  if (MY_NUMBER.test(t) && /まいなんばー|個人番号|my ?number/u.test(normalize(t))) return true
  return false
}

// ---- judging ----------------------------------------------------------------------------------

/** Sentences (and lines): a harm and its damping must share one to cancel. */
const sentences = (text: string): Array<string> =>
  text.split(/(?<=[.!?])\s+|(?<=[。！？])\s*|\n+/u).filter((s) => s.trim() !== "")

/** The category codes `text` triggers, in code order. */
export const judge = (text: string): Array<CategoryCode> => {
  const found = new Set<CategoryCode>()
  for (const sentence of sentences(text)) {
    const s = normalize(sentence)
    const latin = LATIN.test(s)
    const japanese = JAPANESE.test(s)
    const damping: Array<DampingSpan> = [
      ...[...s.matchAll(dampingEn)].map((m) => ({
        reach:
          m.groups?.["before"] !== undefined
            ? ("before" as const)
            : m.groups?.["framing"] !== undefined
              ? ("framing" as const)
              : ("around" as const),
        at: [m.index, m.index + m[0].length] as const
      })),
      ...spans(dampingJa, s).map((at) => ({ reach: "framing" as const, at }))
    ]
    const undampedHit = (re: RegExp) => spans(re, s).some((hit) => !dampedAt(s, damping, hit))
    for (const m of matchers) {
      if (found.has(m.code)) continue
      const hits = [...(latin ? spans(m.en, s) : []), ...(japanese ? spans(m.ja, s) : [])]
      if (hits.length > 0 && (UNDAMPED.has(m.code) || hits.some((hit) => !dampedAt(s, damping, hit)))) found.add(m.code)
    }
    for (const i of intentJa) if (!found.has(i.code) && undampedHit(i.re)) found.add(i.code)
    if (personalData(sentence)) found.add("T6")
  }
  return CategoryCodes.filter((c) => found.has(c))
}

export const guardVerdict = (text: string): string => formatVerdict(judge(text))
