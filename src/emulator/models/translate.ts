/**
 * The emulated translator: deterministic, sentence-aligned and length-proportional, and visibly
 * marked as emulated. English words become katakana-like syllables (en→ja, about half the
 * length); Japanese characters become English-like pseudo-words (ja→en, about twice the length).
 * Whitespace and line breaks between sentences are kept, so chunk boundaries survive.
 */
import type { Lang } from "../../service/schemas/endpoints.ts"
import { fnv1a } from "../hash.ts"

export const EN_MARK = "[emulated translation] "
export const JA_MARK = "【エミュレータ訳】"

const KANA = "アイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン"
const EN_WORDS = ["the", "river", "light", "north", "market", "signal", "garden", "paper", "morning", "stone", "city", "voice",
  "bridge", "window", "season", "letter", "forest", "harbor", "engine", "story"]

const enSentenceToJa = (sentence: string): string => {
  const words = sentence.match(/[\p{L}\p{N}']+/gu) ?? []
  const out = words.map((w) => {
    const h = fnv1a(w.toLowerCase())
    const n = Math.max(1, Math.ceil(w.length / 2))
    let s = ""
    for (let i = 0; i < n; i++) s += KANA[(((h >>> ((i % 4) * 8)) & 0xff) + i * 7) % KANA.length]
    return s
  })
  return out.length === 0 ? sentence : `${out.join("")}。`
}

const jaSentenceToEn = (sentence: string): string => {
  const chars = [...sentence].filter((c) => /[\p{L}\p{N}]/u.test(c))
  const words: Array<string> = []
  for (let i = 0; i < chars.length; i += 2) {
    words.push(EN_WORDS[fnv1a(chars.slice(i, i + 2).join("")) % EN_WORDS.length]!)
  }
  if (words.length === 0) return sentence
  const text = words.join(" ")
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
