/**
 * The emulated svc3-embedding: feature hashing of words, Latin character trigrams and Japanese
 * character uni/bigrams into 1536 signed dimensions, plus a small task-type component. Texts that
 * share words or characters are closer by cosine; vectors are deterministic and not normalised.
 */
import { Limits } from "../../service/limits.ts"
import { fnv1a } from "../hash.ts"
import { latinTrigrams, terms } from "./text-features.ts"

const DIM = Limits.embeddingDimension

const add = (v: Float64Array, feature: string, weight: number) => {
  const h = fnv1a(feature)
  v[h % DIM]! += (h & 0x80000000 ? -1 : 1) * weight
}

export const embed = (text: string, taskType: string): Array<number> => {
  const v = new Float64Array(DIM)
  const ts = terms(text)
  for (const t of ts) {
    add(v, `t:${t.term}`, t.weight)
    if (/^[a-z0-9]/.test(t.term)) for (const g of latinTrigrams(t.term)) add(v, `g:${g}`, 0.25)
  }
  if (ts.length === 0) add(v, `raw:${text}`, 1)
  add(v, `task:${taskType}`, 0.3)
  // Scale like a real model's output (unnormalised, values well below 1) and round for the wire.
  const scale = 1 / Math.sqrt(ts.length + 1)
  return Array.from(v, (x) => Math.round(x * scale * 1e6) / 1e6)
}
