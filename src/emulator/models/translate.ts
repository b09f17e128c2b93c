/**
 * The emulated translator: deterministic, sentence-aligned and length-proportional, and visibly
 * marked as emulated. English words become katakana-like syllables (en→ja, about half the
 * length); Japanese characters become English-like pseudo-words (ja→en, about twice the length).
 * Whitespace and line breaks between sentences are kept, so chunk boundaries survive.
 * Like a real MT model it carries protected tokens over verbatim — `{name}`, `{{x}}`, `${x}`,
 * `%s`-style specifiers, URLs, e-mail addresses, inline `code` and numbers — except, like a real
 * model now and then, a token whose FNV-1a hash is 0 mod 16 (about 1 in 16), which it drops.
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

/** Tokens carried over verbatim (the emulator's own notion, independent of any client's). */
const PROTECTED =
  /`[^`\n]+`|https?:\/\/[^\s<>"'`）」』】、。]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\{\{[^{}\n]*\}\}|\$\{[^{}\n]*\}|\{[\w.:-]*\}|%(?:\d+\$)?\d*(?:\.\d+)?[sdif]|(?<![A-Za-z0-9])\d+(?:[.,]\d+)*(?![A-Za-z0-9])/g

/** Dropped now and then, deterministically, as real models sometimes do. */
export const dropsToken = (token: string) => fnv1a(token) % 16 === 0

/** The sentence's text between protected tokens converted, the tokens kept (or dropped). */
const convertAround = (sentence: string, convert: (text: string) => string): Array<string> => {
  const parts: Array<string> = []
  let last = 0
  for (const m of sentence.matchAll(PROTECTED)) {
    const text = convert(sentence.slice(last, m.index))
    if (text !== "") parts.push(text)
    if (!dropsToken(m[0])) parts.push(m[0])
    last = m.index + m[0].length
  }
  const rest = convert(sentence.slice(last))
  if (rest !== "") parts.push(rest)
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
  return parts.length === 0 ? sentence : `${parts.join("")}。`
}

const jaSentenceToEn = (sentence: string): string => {
  const parts = convertAround(sentence, jaCharsToEn)
  if (parts.length === 0) return sentence
  const text = parts.join(" ")
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`
}

export const translate = (text: string, source: Lang, target: Lang): string => {
  if (text.trim() === "") return text
  const segmenter = new Intl.Segmenter(source, { granularity: "sentence" })
  const convert = source === "en" ? enSentenceToJa : jaSentenceToEn
  let out = ""
  const segments = [...segmenter.segment(text)]
  for (const [i, { segment }] of segments.entries()) {
    const body = segment.trimEnd()
    // Japanese sentences run on without spaces; English ones need one.
    const trailing = segment.slice(body.length) || (target === "en" && i + 1 < segments.length ? " " : "")
    const lead = body.length - body.trimStart().length
    out += segment.slice(0, lead) + (body.trim() === "" ? "" : convert(body.trim())) + trailing
  }
  return (target === "ja" ? JA_MARK : EN_MARK) + out
}
