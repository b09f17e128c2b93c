/**
 * Which language a text is in, ja or en, decided by script on its letters alone: URLs, e-mail
 * addresses, code (inline and fenced), digits, punctuation and symbols are ignored. Japanese
 * letters (kana, kanji, half-width katakana) count three times a Latin letter: one Japanese
 * character carries about what three English letters do, so "今日はGitHubのissueを見た" is
 * Japanese and "I love 寿司 and ramen in Tokyo" English. No letters at all: undefined.
 */
import { emails, fencedBlocks, firstWins, inlineCode, urls } from "./span-patterns.ts"

export type Language = "ja" | "en"

/** The text with code, URLs and e-mail addresses (as span-patterns.ts finds them) blanked. */
const letters = (text: string): string => {
  let out = ""
  let pos = 0
  for (const [start, end] of firstWins([fencedBlocks(text), inlineCode(text), urls(text), emails(text)])) {
    out += `${text.slice(pos, start)} `
    pos = end
  }
  return out + text.slice(pos)
}
const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}ー]/gu
const LATIN = /\p{Script=Latin}/gu

const count = (text: string, re: RegExp) => {
  let n = 0
  for (const _ of text.matchAll(re)) n++
  return n
}

export const detectLanguage = (text: string): Language | undefined => {
  const rest = letters(text)
  const japanese = count(rest, JAPANESE)
  const latin = count(rest, LATIN)
  if (japanese === 0 && latin === 0) return undefined
  return japanese * 3 >= latin ? "ja" : "en"
}
