/**
 * Reranking: each record's candidate list ordered by relevance to its query (svc3-rerank, batches
 * of at most 20, scores merged), the best 10 kept. Candidates: a JSON array (JSONL) or a
 * JSON-array string (CSV). For a separator-delimited column, or other options, list the stage in
 * the job file instead.
 */
import { definePreset } from "../src/pipeline/preset.ts"
import { rerank } from "../src/stages/rerank.ts"

export default definePreset({
  name: "rerank",
  description:
    "Order each record's candidates by relevance to its query (svc3-rerank); adds rerank_ranked (json, best 10), rerank_top, rerank_warnings",
  inputs: { query: "the column holding the query", candidates: "the column holding the candidates (a JSON array)" },
  build: (fields) => [rerank({ query: fields.query![0]!, candidates: fields.candidates![0]!, top_n: 10 })]
})
