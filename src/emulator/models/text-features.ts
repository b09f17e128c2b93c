/**
 * Terms of a text for the lexical models (rerank, embeddings): Latin words lowercased, and for
 * Japanese (kana, kanji) character unigrams and bigrams, since Japanese has no spaces.
 */

const WORD = /[\p{Script=Latin}\p{Nd}]+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+/gu
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]/u

const STOPWORDS = new Set([
  "a", "an", "the", "of", "to", "in", "on", "and", "or", "is", "are", "was", "were", "be", "for", "with", "as", "at",
  "by", "it", "this", "that", "from", "what", "which", "how", "do", "does", "i", "you", "we"
])

export interface Term {
  readonly term: string
  readonly weight: number
}

/** Content terms with weights: longer words and CJK bigrams say more than short words or single kana. */
export const terms = (text: string): Array<Term> => {
  const out: Array<Term> = []
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(WORD)) {
    const w = match[0]
    if (CJK.test(w)) {
      const chars = [...w]
      for (let i = 0; i < chars.length; i++) {
        out.push({ term: chars[i]!, weight: 0.3 })
        if (i + 1 < chars.length) out.push({ term: chars[i]! + chars[i + 1]!, weight: 1 })
      }
    } else if (!STOPWORDS.has(w)) {
      out.push({ term: w, weight: Math.min(w.length, 8) / 4 })
    }
  }
  return out
}

/** Character trigrams of Latin words, for fuzzy matching in embeddings. */
export const latinTrigrams = (word: string): Array<string> => {
  const padded = `#${word}#`
  const grams: Array<string> = []
  for (let i = 0; i + 3 <= padded.length; i++) grams.push(padded.slice(i, i + 3))
  return grams
}
