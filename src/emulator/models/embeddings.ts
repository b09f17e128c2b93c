/**
 * The emulated svc3-embedding: feature hashing of the shared text features (text-features.ts) —
 * stemmed English words and their surface character trigrams, Japanese content words, bigrams and
 * kanji — into 1536 signed dimensions, plus a small task-type component. Texts that share words or
 * characters are closer by cosine; vectors are deterministic and not normalised.
 *
 * Task types weight the feature families differently (word / trigram / ja word / ja bigram /
 * kanji):
 *   RETRIEVAL_QUERY, QUESTION_ANSWERING, FACT_VERIFICATION  1 / 0.2 / 1 / 1 / 0.8 (content words)
 *   RETRIEVAL_DOCUMENT                                      1 / 0.25 / 1 / 1 / 0.8
 *   SEMANTIC_SIMILARITY                                     1 / 0.4 / 1 / 1 / 1 (surface form counts more)
 *   CLASSIFICATION                                          1.3 / 0.1 / 1.3 / 0.8 / 1.2 (topic words)
 *   CLUSTERING                                              1 / 0.3 / 1.2 / 1 / 1
 * so the same text gives a different vector under each task type.
 */
import { Limits } from "../../service/limits.ts"
import { fnv1a } from "../hash.ts"
import { latinTrigrams, terms } from "./text-features.ts"

const DIM = Limits.embeddingDimension

interface TaskWeights {
  readonly word: number
  readonly trigram: number
  readonly jaWord: number
  readonly jaBigram: number
  readonly jaKanji: number
  readonly concept: number
}

const QUERY: TaskWeights = { word: 1, trigram: 0.2, jaWord: 1, jaBigram: 1, jaKanji: 0.8, concept: 1 }
export const TaskWeights: Readonly<Record<string, TaskWeights>> = {
  RETRIEVAL_QUERY: QUERY,
  QUESTION_ANSWERING: QUERY,
  FACT_VERIFICATION: QUERY,
  RETRIEVAL_DOCUMENT: { word: 1, trigram: 0.25, jaWord: 1, jaBigram: 1, jaKanji: 0.8, concept: 1 },
  SEMANTIC_SIMILARITY: { word: 1, trigram: 0.4, jaWord: 1, jaBigram: 1, jaKanji: 1, concept: 1 },
  CLASSIFICATION: { word: 1.3, trigram: 0.1, jaWord: 1.3, jaBigram: 0.8, jaKanji: 1.2, concept: 1.2 },
  CLUSTERING: { word: 1, trigram: 0.3, jaWord: 1.2, jaBigram: 1, jaKanji: 1, concept: 1.2 }
}

const add = (v: Float64Array, feature: string, weight: number) => {
  const h = fnv1a(feature)
  v[h % DIM]! += (h & 0x80000000 ? -1 : 1) * weight
}

export const embed = (text: string, taskType: string): Array<number> => {
  const w = TaskWeights[taskType] ?? QUERY
  const v = new Float64Array(DIM)
  const ts = terms(text)
  for (const t of ts) {
    add(v, `t:${t.term}`, t.weight * w[t.kind])
    if (t.surface !== undefined) for (const g of latinTrigrams(t.surface)) add(v, `g:${g}`, w.trigram)
  }
  if (ts.length === 0) add(v, `raw:${text}`, 1)
  add(v, `task:${taskType}`, 0.3)
  // Scale like a real model's output (unnormalised, values well below 1) and round for the wire.
  const scale = 1 / Math.sqrt(ts.length + 1)
  return Array.from(v, (x) => Math.round(x * scale * 1e6) / 1e6)
}
