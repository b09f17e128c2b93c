/**
 * The emulated svc3-rerank: lexical relevance over the shared text features (stemmed English
 * content words, Japanese content words, bigrams and kanji; see text-features.ts) mapped into the
 * high range the spec describes (scores ≥ 0.9, §2.8). Identical requests give identical scores, and
 * a pair's score does not depend on the rest of the batch.
 *
 * relevance = r·coverage + (1 − r)·focus, where coverage is the weighted share of the query's terms
 * the document contains and focus the weighted share of the document's terms that are query terms
 * (a short on-topic document beats a long one mentioning the term in passing). The task type sets
 * r and term weights:
 *   GENERAL_RETRIEVAL (and no task type) r = 0.8 · GENERAL_QA r = 0.9 (answer the whole question)
 *   · NEWS_RETRIEVAL r = 0.8, numbers and proper-looking long words ×1.5 · SEMANTIC_SIMILARITY
 *   r = 0.5 (symmetric) · CUSTOMIZE r = 0.8, and the query_instruction's terms join the query at
 *   0.3 of their weight.
 * Documents sharing no term score 0.9–0.9009, ordered by character-trigram overlap (then a tiny
 * hash); any shared term lifts a document to ≥ 0.901, above every document with none.
 */
import type { DocumentScore } from "../../service/schemas/endpoints.ts"
import { fnv1a } from "../hash.ts"
import { latinTrigrams, type Term, terms } from "./text-features.ts"

export interface RerankOptions {
  readonly taskType?: string | undefined
  readonly queryInstruction?: string | undefined
}

const coverageShare = (taskType: string | undefined): number =>
  taskType === "GENERAL_QA" ? 0.9 : taskType === "SEMANTIC_SIMILARITY" ? 0.5 : 0.8

const weightOf = (t: Term, taskType: string | undefined): number =>
  taskType === "NEWS_RETRIEVAL" && (/\d/.test(t.term) || t.term.length >= 7) ? t.weight * 1.5 : t.weight

const termMap = (
  ts: ReadonlyArray<Term>,
  taskType: string | undefined,
  scale = 1,
  into = new Map<string, number>()
) => {
  for (const t of ts) into.set(t.term, Math.max(into.get(t.term) ?? 0, weightOf(t, taskType) * scale))
  return into
}

/** Character grams for the no-overlap fallback: Latin trigrams and Japanese characters. */
const grams = (ts: ReadonlyArray<Term>): Set<string> => {
  const out = new Set<string>()
  for (const t of ts) {
    if (t.surface !== undefined) for (const g of latinTrigrams(t.surface)) out.add(g)
    else if (t.kind !== "concept") for (const c of t.term) out.add(c)
  }
  return out
}

export const scorePair = (query: string, document: string, options: RerankOptions = {}): number => {
  const { taskType } = options
  // query_instruction counts only with CUSTOMIZE (the spec: it has no effect otherwise).
  const queryInstruction = taskType === "CUSTOMIZE" ? options.queryInstruction : undefined
  const qTerms = terms(query)
  const q = termMap(qTerms, taskType)
  if (queryInstruction !== undefined) {
    for (const [term, w] of termMap(terms(queryInstruction), taskType, 0.3)) if (!q.has(term)) q.set(term, w)
  }
  const dTerms = terms(document)
  const d = termMap(dTerms, taskType)
  let qTotal = 0
  let qHit = 0
  for (const [term, weight] of q) {
    qTotal += weight
    if (d.has(term)) qHit += weight
  }
  let dTotal = 0
  let dHit = 0
  for (const [term, weight] of d) {
    dTotal += weight
    if (q.has(term)) dHit += weight
  }
  const jitter = fnv1a(`${taskType ?? ""}\u0000${queryInstruction ?? ""}\u0000${query}\u0000${document}`) / 4294967296
  if (qHit === 0) {
    const qg = grams(qTerms)
    const dg = grams(dTerms)
    let shared = 0
    for (const g of qg) if (dg.has(g)) shared++
    const fuzzy = qg.size === 0 ? 0 : shared / qg.size
    return 0.9 + 0.0008 * fuzzy + 0.0001 * jitter
  }
  const r = coverageShare(taskType)
  const relevance = r * (qHit / qTotal) + (1 - r) * (dHit / dTotal)
  return 0.901 + 0.098 * relevance + 0.0001 * jitter
}

/** All documents, best first (ties: lower index first). */
export const rerank = (
  query: string,
  documents: ReadonlyArray<string>,
  options: RerankOptions = {}
): Array<DocumentScore> =>
  documents
    .map((doc, i) => ({ document_id: i, score: scorePair(query, doc, options) }))
    .sort((a, b) => b.score - a.score || a.document_id - b.document_id)
