/**
 * Text features shared by the lexical stand-ins (rerank, embeddings).
 *
 * - Latin words: NFKC, lower-cased, minus English stop words (the `stopword` package's list plus
 *   question and request words such as "where", "can", "please", "tell"), reduced to their Porter
 *   stem by the `stemmer` package: "cats", "cat" → `cat`; "sleeps", "sleeping" → `sleep`.
 *   Weighted 1 + length/8 (up to 2: longer words say a little more).
 * - Japanese (no spaces): split into words by `Intl.Segmenter` (ICU's dictionary), katakana folded
 *   to hiragana (ネコ = ねこ), particles and auxiliaries dropped (the `stopword` Japanese list:
 *   の, について, による …, plus single kana and polite endings), then each content word gives
 *   itself (an inflected verb or adjective by its kanji stem: 焼く, 焼き → 焼), its character
 *   bigrams and its kanji unigrams — so 眠る matches 眠って and 機械学習 matches 機械.
 * Everything runs locally; nothing is downloaded.
 */
import { stemmer } from "stemmer"
import { eng, jpn } from "stopword"
import { Concepts } from "./concepts.ts"

const WORD = /[\p{Script=Latin}\p{Nd}]+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+/gu
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]/u
const HAN = /^[\p{Script=Han}々]$/u
const ONLY_HIRAGANA = /^[\p{Script=Hiragana}ー]+$/u

const ENGLISH_STOP = new Set([
  ...eng,
  "can",
  "cannot",
  "could",
  "may",
  "might",
  "will",
  "shall",
  "should",
  "would",
  "must",
  "does",
  "did",
  "doing",
  "done",
  "where",
  "when",
  "why",
  "what",
  "which",
  "who",
  "whom",
  "whose",
  "how",
  "please",
  "tell",
  "show",
  "give",
  "know",
  "want",
  "need",
  "let",
  "s",
  "t",
  "don",
  "isn",
  "aren",
  "i'm",
  "us",
  "its",
  "it's",
  "yes",
  "no",
  "not",
  "there",
  "here",
  "about",
  "just",
  "so",
  "than",
  "too",
  "very",
  "also",
  "own",
  "same",
  "few",
  "more",
  "most",
  "any",
  "all",
  "each",
  "some",
  "such",
  "onto",
  "upon",
  "within",
  "without",
  "via",
  "per",
  "vs"
])

/** Katakana → hiragana (a fixed code-point offset); the long-vowel mark and others stay. */
export const foldKana = (s: string): string =>
  s.replace(/[\u30a1-\u30f6]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60))

const JAPANESE_STOP = new Set(
  [
    ...jpn,
    "て",
    "って",
    "で",
    "ください",
    "くだ",
    "さい",
    "ます",
    "ました",
    "です",
    "でした",
    "ません",
    "ましょう",
    "しょう",
    "いる",
    "ある",
    "する",
    "した",
    "して",
    "しま",
    "れる",
    "られ",
    "たい",
    "おしえ",
    "教え",
    "ね",
    "よ",
    "か",
    "ぜひ",
    "こちら",
    "そちら",
    "どこ",
    "なに",
    "何",
    "どう",
    "どの",
    "いつ",
    "方",
    "について",
    "に関して",
    "とは"
  ].map(foldKana)
)

const segmenter = new Intl.Segmenter("ja", { granularity: "word" })
/** Segmenting costs more than linearly with length (field notes): cut long runs into windows. */
const WINDOW = 2000

export type FeatureKind = "word" | "jaWord" | "jaBigram" | "jaKanji" | "concept"

export interface Term {
  readonly term: string
  readonly weight: number
  readonly kind: FeatureKind
  /** The surface form of a Latin word (before stemming), for character trigrams. */
  readonly surface?: string
}

const KANJI_STEM = /^([\p{Script=Han}々]+)[\p{Script=Hiragana}]+$/u

/** Weight of a concept term: below a shared word's, so the same word still beats a synonym. */
const CONCEPT_WEIGHT = 0.8

/** Each word of concepts.ts, read as terms() reads it (stem, or Japanese word), → its concept ids. */
let builtIndex: Map<string, Array<string>> | undefined
/** Built on first use (it reads text with the functions below). */
const conceptIndex = (): Map<string, Array<string>> => (builtIndex ??= buildConceptIndex())
const buildConceptIndex = () => {
  const index = new Map<string, Array<string>>()
  const put = (key: string, id: string) => {
    const ids = index.get(key) ?? []
    if (!ids.includes(id)) index.set(key, [...ids, id])
  }
  for (const [id, words] of Object.entries(Concepts))
    for (const word of words) {
      const w = word.normalize("NFKC").toLowerCase()
      if (CJK.test(w)) japaneseWords(w, (j) => put(j, id))
      else put(stemmer(w), id)
    }
  return index
}

const concept = (key: string, out: Array<Term>) => {
  for (const id of conceptIndex().get(key) ?? []) out.push({ term: `c:${id}`, weight: CONCEPT_WEIGHT, kind: "concept" })
}

/** The concept ids `word` (one English or Japanese word of concepts.ts) is read as, for tests. */
export const conceptsOf = (word: string): Array<string> =>
  terms(word)
    .filter((t) => t.kind === "concept")
    .map((t) => t.term.slice(2))

/** A Japanese word as it counts: an inflected verb or adjective (kanji stem + hiragana ending as
 * written: 焼く, 焼き, 咲いた) by its stem; a kanji + katakana word (食パン) whole. */
const japaneseStem = (word: string, written: string): string =>
  KANJI_STEM.test(written) ? KANJI_STEM.exec(word)![1]! : word

const japaneseWord = (w: string, out: Array<Term>) => {
  const chars = [...w]
  if (chars.length === 1 || chars.length > 2)
    out.push({ term: w, weight: chars.length === 1 ? 1.2 : 1.5, kind: "jaWord" })
  for (let i = 0; i < chars.length; i++) {
    if (chars.length > 1 && HAN.test(chars[i]!)) out.push({ term: chars[i]!, weight: 0.6, kind: "jaKanji" })
    if (i + 1 < chars.length) out.push({ term: chars[i]! + chars[i + 1]!, weight: 1, kind: "jaBigram" })
  }
  concept(w, out)
}

/** The content words of a Japanese run, each as it counts (japaneseStem). */
const japaneseWords = (run: string, each: (word: string) => void) => {
  for (let start = 0; start < run.length; start += WINDOW) {
    // ICU splits words it does not know in kana into single characters (ねこ → ね|こ): consecutive
    // lone kana that are not particles are joined back into one word.
    let pending = ""
    const flush = () => {
      if ([...pending].length > 1) each(pending)
      pending = ""
    }
    // Segment the text as written (katakana marks loanwords for ICU), fold each word afterwards.
    for (const seg of segmenter.segment(run.slice(start, start + WINDOW))) {
      const w = foldKana(seg.segment)
      if (JAPANESE_STOP.has(w)) {
        flush()
        continue
      }
      if ([...w].length === 1 && !HAN.test(w)) {
        pending += w
        continue
      }
      flush()
      if (ONLY_HIRAGANA.test(w) && !seg.isWordLike) continue
      each(japaneseStem(w, seg.segment))
    }
    flush()
  }
}

const japaneseTerms = (run: string, out: Array<Term>) => japaneseWords(run, (w) => japaneseWord(w, out))

/** Content terms with weights and kinds (see the module comment). */
export const terms = (text: string): Array<Term> => {
  const out: Array<Term> = []
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(WORD)) {
    const w = match[0]
    if (CJK.test(w)) japaneseTerms(w, out)
    else if (!ENGLISH_STOP.has(w) && !(w.length === 1 && !/\d/.test(w))) {
      const stem = stemmer(w)
      out.push({ term: stem, weight: 1 + Math.min(stem.length, 8) / 8, kind: "word", surface: w })
      concept(stem, out)
    }
  }
  return out
}

/** Character trigrams of Latin words, for fuzzy matching. */
export const latinTrigrams = (word: string): Array<string> => {
  const padded = `#${word}#`
  const grams: Array<string> = []
  for (let i = 0; i + 3 <= padded.length; i++) grams.push(padded.slice(i, i + 3))
  return grams
}
