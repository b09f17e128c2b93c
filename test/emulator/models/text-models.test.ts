import { describe, expect, it } from "vitest"
import { embed } from "../../../src/emulator/models/embeddings.ts"
import { rerank, scorePair } from "../../../src/emulator/models/rerank.ts"
import { terms } from "../../../src/emulator/models/text-features.ts"
import { evaluateOrdering } from "./ordering-eval.ts"
import { cosine } from "../../helpers.ts"

describe("text features", () => {
  it("stems English words: 'cats' matches 'cat', 'sleeps' matches 'sleeping'", () => {
    expect(terms("cats sleeps").map((t) => t.term)).toEqual(terms("cat sleeping").map((t) => t.term))
    expect(scorePair("cats", "a cat")).toBeGreaterThan(0.99)
  })

  it("drops stop words: where/can/about do not count as content", () => {
    expect(terms("Where can I read about it?").map((t) => t.term)).toEqual(["read"])
    expect(scorePair("Where can cats sleep?", "Where can I buy a train ticket?")).toBeLessThan(0.901)
  })

  it("drops Japanese particles: について matches nothing by itself", () => {
    expect(terms("猫について教えて").map((t) => t.term)).toEqual(["猫"])
    expect(scorePair("猫について教えて", "東京の天気について説明します。")).toBeLessThan(0.901)
  })

  it("folds katakana to hiragana and reads inflected words by their kanji stem", () => {
    expect(terms("ネコ").map((t) => t.term)).toEqual(terms("ねこ").map((t) => t.term))
    expect(terms("焼く").map((t) => t.term)).toEqual(terms("焼き").map((t) => t.term))
  })
})

describe("rerank stand-in", () => {
  it("scores a document without any shared term below one with a shared term", () => {
    const [first, second, third] = rerank("Where can cats sleep?", [
      "株価は今日大きく下落した。",
      "You can find the museum where the old bridge was.",
      "My cat sleeps on the windowsill in the afternoon sun."
    ])
    expect(first!.document_id).toBe(2)
    expect(first!.score).toBeGreaterThanOrEqual(0.901)
    expect(second!.score).toBeLessThan(0.901)
    expect(third!.score).toBeGreaterThanOrEqual(0.9)
  })

  it("keeps scores in [0.9, 1), deterministic and independent of the batch", () => {
    const a = rerank("ferry harbour", ["Ferries leave the harbour.", "nothing"])
    const b = rerank("ferry harbour", ["other", "x y z", "Ferries leave the harbour."])
    expect(a[0]!.score).toBe(b[0]!.score)
    for (const s of [...a, ...b]) expect(s.score >= 0.9 && s.score < 1).toBe(true)
  })

  it("task_type and query_instruction change the scores", () => {
    const q = "bank rates"
    const d = "The bank raised rates again, and the bank said more rises may follow soon."
    expect(scorePair(q, d, { taskType: "SEMANTIC_SIMILARITY" })).not.toBe(scorePair(q, d, { taskType: "GENERAL_QA" }))
    const plain = scorePair(q, "mortgage news", { taskType: "CUSTOMIZE", queryInstruction: "find texts about housing" })
    const guided = scorePair(q, "mortgage news", { taskType: "CUSTOMIZE", queryInstruction: "find mortgage news" })
    expect(guided).toBeGreaterThan(plain)
  })
})

describe("embeddings stand-in", () => {
  it("task_type changes the vector; 1536-d, unnormalised, deterministic", () => {
    const a = embed("My cat sleeps on the windowsill.", "RETRIEVAL_DOCUMENT")
    const b = embed("My cat sleeps on the windowsill.", "CLASSIFICATION")
    expect(a).toHaveLength(1536)
    expect(a).toEqual(embed("My cat sleeps on the windowsill.", "RETRIEVAL_DOCUMENT"))
    expect(a).not.toEqual(b)
    expect(Math.abs(Math.hypot(...a) - 1)).toBeGreaterThan(0.01)
  })

  it("'cats' is nearer to a text about a cat than stop-word overlap is", () => {
    const q = embed("Where can cats sleep?", "RETRIEVAL_QUERY")
    const cat = cosine(q, embed("My cat sleeps on the windowsill.", "RETRIEVAL_DOCUMENT"))
    const stop = cosine(q, embed("Where can I buy a train ticket?", "RETRIEVAL_DOCUMENT"))
    expect(cat).toBeGreaterThan(stop)
  })
})

describe("ordering evaluation (ordering-eval.jsonl)", () => {
  // Before the shared features: rerank 20/30, embeddings 14/30.
  const result = evaluateOrdering()
  it("rerank ranks the relevant document first for ≥ 90 % of queries", () => {
    expect(result.total).toBe(30)
    expect(result.rerankFirst / result.total).toBeGreaterThanOrEqual(0.9)
  })
  it("embeddings (cosine) rank the relevant document first for ≥ 75 % of queries", () => {
    expect(result.embeddingsFirst / result.total).toBeGreaterThanOrEqual(0.75)
  })
})
