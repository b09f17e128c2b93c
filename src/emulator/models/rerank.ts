/**
 * The emulated svc3-rerank: lexical relevance (the weighted share of the query's terms that the
 * document contains) mapped into the high range the spec describes (scores ≥ 0.9, §2.8), plus a
 * tiny per-pair hash so that ties are stable. Identical requests give identical scores, and a
 * pair's score does not depend on the rest of the batch.
 */
import type { DocumentScore } from "../../service/schemas/endpoints.ts"
import { fnv1a } from "../hash.ts"
import { terms } from "./text-features.ts"

export const scorePair = (query: string, document: string): number => {
  const q = new Map<string, number>()
  for (const t of terms(query)) q.set(t.term, Math.max(q.get(t.term) ?? 0, t.weight))
  const d = new Set(terms(document).map((t) => t.term))
  let total = 0
  let hit = 0
  for (const [term, weight] of q) {
    total += weight
    if (d.has(term)) hit += weight
  }
  const relevance = total === 0 ? 0 : hit / total
  const jitter = fnv1a(`${query}\u0000${document}`) / 4294967296
  return 0.9 + 0.0995 * relevance + 0.0004 * jitter
}

/** All documents, best first (ties: lower index first). */
export const rerank = (query: string, documents: ReadonlyArray<string>): Array<DocumentScore> =>
  documents
    .map((doc, i) => ({ document_id: i, score: scorePair(query, doc) }))
    .sort((a, b) => b.score - a.score || a.document_id - b.document_id)
