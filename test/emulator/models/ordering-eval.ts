/**
 * The ordering evaluation of the rerank and embeddings stand-ins: for each query of
 * `ordering-eval.jsonl`, is its relevant document ranked first among the distractors? Rerank ranks
 * by score; embeddings by the cosine of the query's vector (RETRIEVAL_QUERY) with each document's
 * (RETRIEVAL_DOCUMENT). Run `npx tsx test/emulator/models/ordering-eval.ts` for the figures.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { embed } from "../../../src/emulator/models/embeddings.ts"
import { scorePair } from "../../../src/emulator/models/rerank.ts"
import { cosine } from "../../helpers.ts"

export interface OrderingCase {
  readonly query: string
  readonly relevant: string
  readonly distractors: ReadonlyArray<string>
}

/** A JSON-lines set of cases, by its URL. */
export const loadOrderingCases = (url: URL): ReadonlyArray<OrderingCase> =>
  readFileSync(fileURLToPath(url), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as OrderingCase)

export const orderingCases = loadOrderingCases(new URL("./ordering-eval.jsonl", import.meta.url))

export interface OrderingResult {
  readonly total: number
  readonly rerankFirst: number
  readonly embeddingsFirst: number
  readonly rerankMisses: ReadonlyArray<string>
  readonly embeddingsMisses: ReadonlyArray<string>
}

/** Strictly first: a tie with a distractor counts as a miss. */
export const evaluateOrdering = (cases: ReadonlyArray<OrderingCase> = orderingCases): OrderingResult => {
  let rerankFirst = 0
  let embeddingsFirst = 0
  const rerankMisses: Array<string> = []
  const embeddingsMisses: Array<string> = []
  for (const c of cases) {
    const r = scorePair(c.query, c.relevant)
    if (c.distractors.every((d) => scorePair(c.query, d) < r)) rerankFirst++
    else rerankMisses.push(c.query)
    const q = embed(c.query, "RETRIEVAL_QUERY")
    const e = cosine(q, embed(c.relevant, "RETRIEVAL_DOCUMENT"))
    if (c.distractors.every((d) => cosine(q, embed(d, "RETRIEVAL_DOCUMENT")) < e)) embeddingsFirst++
    else embeddingsMisses.push(c.query)
  }
  return { total: cases.length, rerankFirst, embeddingsFirst, rerankMisses, embeddingsMisses }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = evaluateOrdering()
  const pct = (n: number) => `${((100 * n) / r.total).toFixed(1)} % (${n}/${r.total})`
  console.log(`rerank: relevant first ${pct(r.rerankFirst)}; misses: ${JSON.stringify(r.rerankMisses)}`)
  console.log(`embeddings: relevant first ${pct(r.embeddingsFirst)}; misses: ${JSON.stringify(r.embeddingsMisses)}`)
}
