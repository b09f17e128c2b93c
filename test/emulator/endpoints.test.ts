/** Rerank, embeddings and translate rules (spec §2.8–2.10, §4.4–4.6) over raw HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { EN_MARK, JA_MARK } from "../../src/emulator/models/translate.ts"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { cosine, emulatorFor, post } from "../helpers.ts"

let emu: RunningEmulator
beforeAll(async () => {
  emu = await emulatorFor()
})
afterAll(() => emu.close())

describe("rerank", () => {
  const rerank = (body: Record<string, unknown>) => post(emu, "/v1/rerank", { model: "svc3-rerank", ...body })
  const docs = [
    "Dogs bark at night.",
    "The best cat food brands of 2026",
    "Cat toys and cat food reviews",
    "Stock markets fell"
  ]

  it("returns every document, descending, scores in [0,1] and high overall, lexically relevant first", async () => {
    const r = await rerank({ query: "cat food", documents: docs })
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ object: "list", model: "svc3-rerank" })
    expect(r.json.data).toHaveLength(1)
    expect(r.json.data[0]).toMatchObject({ object: "reranked_document_list", index: 0 })
    const result = r.json.data[0].result as Array<{ document_id: number; score: number }>
    expect(result.map((d) => d.document_id).sort()).toEqual([0, 1, 2, 3])
    for (let i = 1; i < result.length; i++) expect(result[i - 1]!.score).toBeGreaterThanOrEqual(result[i]!.score)
    for (const d of result) {
      expect(d.score).toBeGreaterThanOrEqual(0.9)
      expect(d.score).toBeLessThanOrEqual(1)
    }
    expect([1, 2]).toContain(result[0]!.document_id)
    expect([0, 3]).toContain(result[3]!.document_id)
    expect(r.json.usage.completion_tokens).toBe(0)
    expect(r.json.usage.prompt_tokens).toBe(r.json.usage.total_tokens)
    expect(r.json.usage.prompt_tokens_details).toBeNull()
  })

  it("ranks Japanese documents by shared characters", async () => {
    const r = await rerank({ query: "猫の餌", documents: ["株価が下落した", "猫の餌のおすすめ", "犬の散歩"] })
    expect(r.json.data[0].result[0].document_id).toBe(1)
  })

  it("gives identical scores to identical requests, and a pair the same score in any batch", async () => {
    const a = await rerank({ query: "cat food", documents: docs })
    const b = await rerank({ query: "cat food", documents: docs })
    expect(a.json.data).toEqual(b.json.data)
    const alone = await rerank({ query: "cat food", documents: [docs[2]] })
    const inBatch = a.json.data[0].result.find((d: { document_id: number }) => d.document_id === 2).score
    expect(Math.abs(alone.json.data[0].result[0].score - inBatch)).toBeLessThan(1e-5)
  })

  it("accepts 1 to 20 documents and the five task types; rejects the rest with 400", async () => {
    expect((await rerank({ query: "q", documents: Array(20).fill("d") })).status).toBe(200)
    expect((await rerank({ query: "q", documents: Array(21).fill("d") })).status).toBe(400)
    expect((await rerank({ query: "q", documents: [] })).status).toBe(400)
    expect((await rerank({ query: "q", documents: "d" })).status).toBe(400)
    for (const task_type of ["GENERAL_RETRIEVAL", "GENERAL_QA", "NEWS_RETRIEVAL", "SEMANTIC_SIMILARITY"]) {
      expect((await rerank({ query: "q", documents: ["d"], task_type })).status).toBe(200)
    }
    expect((await rerank({ query: "q", documents: ["d"], task_type: "WEB" })).status).toBe(400)
  })

  it("needs query_instruction with CUSTOMIZE, which has no effect otherwise", async () => {
    expect((await rerank({ query: "q", documents: ["d"], task_type: "CUSTOMIZE" })).status).toBe(400)
    expect(
      (await rerank({ query: "q", documents: ["d"], task_type: "CUSTOMIZE", query_instruction: "FAQ" })).status
    ).toBe(200)
    const a = await rerank({ query: "cat", documents: docs, query_instruction: "ignored" })
    const b = await rerank({ query: "cat", documents: docs })
    expect(a.json.data).toEqual(b.json.data)
    const custom = (instruction: string) =>
      rerank({ query: "cat", documents: docs, task_type: "CUSTOMIZE", query_instruction: instruction })
    expect((await custom("find food")).json.data).not.toEqual((await custom("find weather")).json.data)
  })

  it("rejects a query-document pair over 8,000 tokens", async () => {
    const r = await rerank({ query: "q ".repeat(4000), documents: ["short", "d ".repeat(4100)] })
    expect(r.status).toBe(400)
    expect(r.json.message).toMatch(/documents\.1/)
  })

  it("ignores undefined parameters", async () => {
    expect((await rerank({ query: "q", documents: ["d"], top_n: 3, foo: 1 })).status).toBe(200)
  })
})

describe("embeddings", () => {
  const embed = (body: Record<string, unknown>) => post(emu, "/v1/embeddings", { model: "svc3-embedding", ...body })
  const vector = async (input: string, task_type = "SEMANTIC_SIMILARITY") =>
    (await embed({ input, task_type })).json.data[0].embedding as Array<number>

  it("returns one 1536-float embedding, not normalised, with usage", async () => {
    const r = await embed({ input: "The quick brown fox", task_type: "RETRIEVAL_DOCUMENT" })
    expect(r.status).toBe(200)
    expect(r.json).toMatchObject({ object: "list", model: "svc3-embedding" })
    expect(r.json.data).toHaveLength(1)
    expect(r.json.data[0]).toMatchObject({ object: "embedding", index: 0 })
    const v = r.json.data[0].embedding as Array<number>
    expect(v).toHaveLength(1536)
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
    expect(Math.abs(norm - 1)).toBeGreaterThan(0.01)
    expect(r.json.usage.prompt_tokens).toBeGreaterThan(0)
    expect(r.json.usage.total_tokens).toBe(r.json.usage.prompt_tokens)
  })

  it("is deterministic and puts similar texts closer by cosine (English and Japanese)", async () => {
    expect(await vector("cats like fish")).toEqual(await vector("cats like fish"))
    const cat = await vector("My cat likes to eat fish")
    expect(cosine(cat, await vector("The cat eats fish every day"))).toBeGreaterThan(
      cosine(cat, await vector("Quarterly revenue grew in Europe"))
    )
    const ja = await vector("猫は魚を食べるのが好きです")
    expect(cosine(ja, await vector("猫が魚を食べた"))).toBeGreaterThan(cosine(ja, await vector("株価が大きく下落した")))
  })

  it("requires a valid task_type with the message 'task_type is invalid'", async () => {
    for (const body of [{ input: "x" }, { input: "x", task_type: "SEARCH" }, { input: "x", task_type: 3 }]) {
      const r = await embed(body)
      expect(r.status).toBe(400)
      expect(r.json.message).toBe("task_type is invalid")
    }
    for (const task_type of [
      "RETRIEVAL_DOCUMENT",
      "SEMANTIC_SIMILARITY",
      "RETRIEVAL_QUERY",
      "QUESTION_ANSWERING",
      "FACT_VERIFICATION",
      "CLASSIFICATION",
      "CLUSTERING"
    ]) {
      expect((await embed({ input: "x", task_type })).status).toBe(200)
    }
  })

  it("takes one text only, at most 8,000 tokens", async () => {
    expect((await embed({ input: ["a", "b"], task_type: "CLUSTERING" })).status).toBe(400)
    expect((await embed({ input: "word ".repeat(7990), task_type: "CLUSTERING" })).status).toBe(200)
    const over = await embed({ input: "word ".repeat(8001), task_type: "CLUSTERING" })
    expect(over.status).toBe(400)
    expect(over.json.message).toMatch(/8000/)
  })

  it("ignores encoding_format (always floats) and undefined parameters", async () => {
    const r = await embed({ input: "x", task_type: "CLUSTERING", encoding_format: "base64", dimensions: 8 })
    expect(r.status).toBe(200)
    expect(typeof r.json.data[0].embedding[0]).toBe("number")
    expect(r.json.data[0].embedding).toHaveLength(1536)
  })
})

describe("translate", () => {
  const translate = (body: Record<string, unknown>) => post(emu, "/v1/translate", body)

  it("translates en→ja and ja→en, deterministic, marked as emulated, with translated_text only", async () => {
    const en = await translate({ text: "Hello world. How are you today?", source_lang: "en", target_lang: "ja" })
    expect(en.status).toBe(200)
    expect(Object.keys(en.json)).toEqual(["translated_text"])
    expect(en.json.translated_text.startsWith(JA_MARK)).toBe(true)
    const again = await translate({ text: "Hello world. How are you today?", source_lang: "en", target_lang: "ja" })
    expect(again.json).toEqual(en.json)
    const ja = await translate({ text: "こんにちは。お元気ですか？", source_lang: "ja", target_lang: "en" })
    expect(ja.json.translated_text.startsWith(EN_MARK)).toBe(true)
  })

  it("is sentence-aligned and length-proportional", async () => {
    const one = "The weather is nice today."
    const three = `${one} ${one} ${one}`
    const a = (await translate({ text: one, source_lang: "en", target_lang: "ja" })).json.translated_text as string
    const b = (await translate({ text: three, source_lang: "en", target_lang: "ja" })).json.translated_text as string
    expect(b.split("。").length - 1).toBe(3)
    const body = (s: string) => s.slice(JA_MARK.length)
    expect(body(b).length).toBeGreaterThan(2.5 * body(a).length)
    const ja = (await translate({ text: "猫が好きです。犬も好きです。", source_lang: "ja", target_lang: "en" })).json
      .translated_text as string
    expect(ja.slice(EN_MARK.length).split(". ").length).toBe(2)
  })

  it("accepts 5,000 code points (a ZWJ emoji counts per component) and rejects 5,001", async () => {
    const family = "👨‍👩‍👧‍👦" // 7 code points, 11 UTF-16 units
    const text = family.repeat(714) + "ab" // 4,998 + 2 = 5,000 code points
    expect((await translate({ text, source_lang: "en", target_lang: "ja" })).status).toBe(200)
    const over = await translate({ text: text + "c", source_lang: "en", target_lang: "ja" })
    expect(over.status).toBe(400)
    expect(over.json.message).toMatch(/5000/)
  })

  it("allows ja and en only, and not the same language on both sides", async () => {
    expect((await translate({ text: "x", source_lang: "fr", target_lang: "en" })).status).toBe(400)
    expect((await translate({ text: "x", source_lang: "en", target_lang: "de" })).status).toBe(400)
    expect((await translate({ text: "x", source_lang: "en", target_lang: "en" })).status).toBe(400)
    expect((await translate({ text: "x", source_lang: "ja", target_lang: "ja" })).status).toBe(400)
    expect((await translate({ text: ["x"], source_lang: "en", target_lang: "ja" })).status).toBe(400)
  })

  it("names every allowed language in its 400 message", async () => {
    const r = await translate({ text: "x", source_lang: "fr", target_lang: "en" })
    expect(r.json.message).toBe('Bad Request: source_lang: Expected one of "ja", "en", actual "fr"')
  })

  it("ignores model and undefined parameters", async () => {
    const r = await translate({
      text: "Good morning.",
      source_lang: "en",
      target_lang: "ja",
      model: "whatever",
      formality: "high"
    })
    expect(r.status).toBe(200)
  })
})
