/**
 * The emulated translator: deterministic, sentence-aligned and length-proportional, and visibly
 * marked as emulated. English words become katakana-like syllables (en→ja, about half the
 * length); Japanese characters become English-like pseudo-words (ja→en, about twice the length).
 * Whitespace and line breaks between sentences are kept, so chunk boundaries survive.
 * Like a real MT model it carries protected tokens over verbatim — `{name}`, `{{x}}`, `${x}`,
 * `%s`-style specifiers, URLs, e-mail addresses, inline `code`, HTML tags, numbers with their signs
 * and separators (phone numbers, dates, versions, amounts), currency signs, `%` and emoji — except,
 * like a real model now and then, a token whose FNV-1a hash is 0 mod 16 (about 1 in 16), which it
 * drops.
 */
import type { Lang } from "../../service/schemas/endpoints.ts"
import { fnv1a } from "../hash.ts"

export const EN_MARK = "[emulated translation] "
export const JA_MARK = "【エミュレータ訳】"

const KANA = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン"
const EN_WORDS = [
  "the",
  "river",
  "light",
  "north",
  "market",
  "signal",
  "garden",
  "paper",
  "morning",
  "stone",
  "city",
  "voice",
  "bridge",
  "window",
  "season",
  "letter",
  "forest",
  "harbor",
  "engine",
  "story"
]

/**
 * Tokens carried over verbatim (the emulator's own notion, independent of any client's), longest
 * forms first: inline code, URLs (query strings included), e-mail addresses, template placeholders,
 * printf specifiers, HTML tags and entities, number-like tokens with their signs, separators,
 * currency and percent (`+81-3-1234-5678`, `2025-03-31`, `v2.3.1`, `¥3,200`, `50%`), a lone
 * currency sign or `%`, and emoji (ZWJ sequences, flags, skin tones as one token).
 */
const PROTECTED = new RegExp(
  [
    "`[^`\\n]+`",
    "https?://[^\\s<>\"'`）」』】、。]+",
    "[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+",
    "\\{\\{[^{}\\n]*\\}\\}",
    "\\$\\{[^{}\\n]*\\}",
    "\\{[\\w.:-]*\\}",
    "%(?:\\d+\\$)?[-+ 0#]*\\d*(?:\\.\\d+)?[sdif]",
    "</?[A-Za-z][^<>\\n]*>",
    "&(?:[A-Za-z]+|#\\d+|#x[0-9A-Fa-f]+);",
    "(?<![A-Za-z0-9])[+\\p{Sc}]?(?:[A-Za-z]+[-_]?)?\\d[A-Za-z0-9]*(?:[-‐./:,_][A-Za-z0-9]+)*%?(?![A-Za-z0-9])",
    "[%\\p{Sc}]",
    "\\p{RI}\\p{RI}",
    "\\p{Extended_Pictographic}[\\u{1F3FB}-\\u{1F3FF}\\uFE0F\\u20E3]*(?:\\u200D\\p{Extended_Pictographic}[\\u{1F3FB}-\\u{1F3FF}\\uFE0F]*)*"
  ].join("|"),
  "gu"
)

interface Span {
  readonly start: number
  readonly end: number
}

/** The protected tokens of `text`; a URL ends before trailing punctuation (and an unopened `)`). */
const protectedSpans = (text: string): Array<Span> =>
  [...text.matchAll(PROTECTED)].map((m) => {
    let token = m[0]
    if (/^https?:/.test(token)) {
      for (;;) {
        const trimmed = token.replace(/[.,;:!?'"\]]+$/, "")
        const unopened = trimmed.endsWith(")") && trimmed.split("(").length < trimmed.split(")").length
        token = unopened ? trimmed.slice(0, -1) : trimmed
        if (!unopened) break
      }
    }
    return { start: m.index, end: m.index + token.length }
  })

/** Dropped now and then, deterministically, as real models sometimes do. */
export const dropsToken = (token: string) => fnv1a(token) % 16 === 0

/** The sentence's parts: text between protected tokens converted, the tokens kept (or dropped). */
const convertAround = (
  sentence: string,
  convert: (text: string) => string
): Array<{ readonly text: string; readonly token: boolean }> => {
  const parts: Array<{ text: string; token: boolean }> = []
  let last = 0
  for (const { start, end } of protectedSpans(sentence)) {
    if (start < last) continue
    const text = convert(sentence.slice(last, start))
    if (text !== "") parts.push({ text, token: false })
    const token = sentence.slice(start, end)
    if (!dropsToken(token)) parts.push({ text: token, token: true })
    last = end
  }
  const rest = convert(sentence.slice(last))
  if (rest !== "") parts.push({ text: rest, token: false })
  return parts
}

const enWordsToJa = (text: string): string =>
  (text.match(/[\p{L}\p{N}']+/gu) ?? [])
    .map((w) => {
      const h = fnv1a(w.toLowerCase())
      const n = Math.max(1, Math.ceil(w.length / 2))
      let s = ""
      for (let i = 0; i < n; i++) s += KANA[(((h >>> ((i % 4) * 8)) & 0xff) + i * 7) % KANA.length]
      return s
    })
    .join("")

const jaCharsToEn = (text: string): string => {
  const chars = [...text].filter((c) => /[\p{L}\p{N}]/u.test(c))
  const words: Array<string> = []
  for (let i = 0; i < chars.length; i += 2)
    words.push(EN_WORDS[fnv1a(chars.slice(i, i + 2).join("")) % EN_WORDS.length]!)
  return words.join(" ")
}

const enSentenceToJa = (sentence: string): string => {
  const parts = convertAround(sentence, enWordsToJa)
  return parts.length === 0 ? sentence : `${parts.map((p) => p.text).join("")}。`
}

const jaSentenceToEn = (sentence: string): string => {
  const parts = convertAround(sentence, jaCharsToEn)
  if (parts.length === 0) return sentence
  const text = parts.map((p) => p.text).join(" ")
  // A sentence opening with a token (a URL, `code`) keeps it as it is.
  return `${parts[0]!.token ? text : `${text[0]!.toUpperCase()}${text.slice(1)}`}.`
}

/**
 * The text's sentences: a boundary the segmenter puts inside a protected token (the `?` of a URL's
 * query, the `.` of a version) is not one.
 */
const sentences = (text: string, source: Lang): Array<string> => {
  const spans = protectedSpans(text)
  const inside = (offset: number) => spans.some((s) => s.start < offset && offset < s.end)
  const out: Array<string> = []
  for (const { segment, index } of new Intl.Segmenter(source, { granularity: "sentence" }).segment(text)) {
    if (out.length > 0 && inside(index)) out[out.length - 1] += segment
    else out.push(segment)
  }
  return out
}

export const translate = (text: string, source: Lang, target: Lang): string => {
  if (text.trim() === "") return text
  const convert = source === "en" ? enSentenceToJa : jaSentenceToEn
  let out = ""
  const segments = sentences(text, source)
  for (const [i, segment] of segments.entries()) {
    const body = segment.trimEnd()
    // Japanese sentences run on without spaces; English ones need one.
    const trailing = segment.slice(body.length) || (target === "en" && i + 1 < segments.length ? " " : "")
    const lead = body.length - body.trimStart().length
    out += segment.slice(0, lead) + (body.trim() === "" ? "" : convert(body.trim())) + trailing
  }
  return (target === "ja" ? JA_MARK : EN_MARK) + out
}
