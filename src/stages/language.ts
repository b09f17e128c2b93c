/**
 * Which language a text is in, ja or en, decided by script on its letters alone: URLs, e-mail
 * addresses, code (inline and fenced), digits, punctuation and symbols are ignored. Japanese
 * letters (kana, kanji, half-width katakana) count three times a Latin letter: one Japanese
 * character carries about what three English letters do, so "今日はGitHubのissueを見た" is
 * Japanese and "I love 寿司 and ramen in Tokyo" English. No letters at all: undefined.
 */
export type Language = "ja" | "en"

const IGNORED = /```[\s\S]*?```|`[^`\n]*`|https?:\/\/\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g
const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}ー]/gu
const LATIN = /\p{Script=Latin}/gu

const count = (text: string, re: RegExp) => {
  let n = 0
  for (const _ of text.matchAll(re)) n++
  return n
}

export const detectLanguage = (text: string): Language | undefined => {
  const letters = text.replace(IGNORED, " ")
  const japanese = count(letters, JAPANESE)
  const latin = count(letters, LATIN)
  if (japanese === 0 && latin === 0) return undefined
  return japanese * 3 >= latin ? "ja" : "en"
}
