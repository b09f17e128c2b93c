/** The moderate stage and text chunking. */
import { describe, expect, it } from "@effect/vitest"
import { StageInputError } from "../../src/pipeline/stage.ts"
import { chunkText } from "../../src/stages/chunking.ts"
import { moderate } from "../../src/stages/moderate.ts"
import { countTokens } from "../../src/service/tokens.ts"
import { preparation, refusal } from "./prepare-result.ts"

describe("chunkText", () => {
  it("keeps short text whole and splits long text at sentence ends, losing nothing", () => {
    expect(chunkText("", 10, (s) => s.length)).toEqual([])
    expect(chunkText("Short one.", 100, (s) => s.length)).toEqual(["Short one."])
    const text = "First sentence here. Second sentence here. Third one!\nA new paragraph. 日本語の文です。次の文。"
    const chunks = chunkText(text, 30, (s) => s.length)
    expect(chunks.join("")).toBe(text)
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(30)
    expect(chunks[0]).toBe("First sentence here. ")
  })

  it("splits an over-long sentence by graphemes, never inside one", () => {
    const family = "👨‍👩‍👧‍👦"
    const text = family.repeat(20)
    const chunks = chunkText(text, 15, (s) => s.length) // a family is 11 UTF-16 units
    expect(chunks.join("")).toBe(text)
    for (const c of chunks) expect(c).toBe(family)
  })

  it("chunks long text without punctuation or line breaks (windowed segmentation)", () => {
    const text = "word ".repeat(40_000) + "日本語".repeat(5000)
    const chunks = chunkText(text, 4000, countTokens)
    expect(chunks.join("")).toBe(text)
    for (const c of chunks) expect(countTokens(c)).toBeLessThanOrEqual(4000)
  })

  it("measures in tokens for the guard", () => {
    const text = "word ".repeat(3000)
    const chunks = chunkText(text, 1000, countTokens)
    expect(chunks.join("")).toBe(text)
    for (const c of chunks) expect(countTokens(c)).toBeLessThanOrEqual(1000)
    expect(chunks.length).toBeGreaterThanOrEqual(3)
  })
})

describe("moderate stage", () => {
  const stage = moderate({ fields: ["title", "body"], maxTokensPerCall: 50 })
  const assemble = (answers: ReadonlyArray<string>) =>
    preparation(stage.prepare({ title: "t", body: "b" })).assemble(answers)

  it("makes one request per non-empty chunk of every field, each with its content key", () => {
    const { requests } = preparation(stage.prepare({ title: "Hello", body: "A sentence. ".repeat(30), extra: 1 }))
    expect(requests.length).toBeGreaterThan(2)
    expect(requests[0]!.text).toBe("Hello")
    expect(requests.every((r) => r.model === "svc3-guard" && r.endpoint === "chat" && r.key.length > 20)).toBe(true)
    expect(preparation(stage.prepare({ title: "", body: null })).requests).toHaveLength(0)
  })

  it("fails a record whose field is missing, without a request", () => {
    const r = refusal(stage.prepare({ title: "x" }))
    expect(r).toBeInstanceOf(StageInputError)
    expect(r.message).toContain("body")
  })

  it("combines chunk verdicts: harmful if any part is, union of codes, raw kept when unparseable", () => {
    expect(assemble(["安全", "安全"])).toEqual([
      { moderation_verdict: "safe", moderation_categories: "", moderation_raw: "" }
    ])
    expect(assemble(["安全", "有害\nT9, T2", "有害\nT2"])).toEqual([
      { moderation_verdict: "harmful", moderation_categories: "T2,T9", moderation_raw: "" }
    ])
    expect(assemble(["安全", "I cannot judge this"])).toEqual([
      { moderation_verdict: "unparsed", moderation_categories: "", moderation_raw: "I cannot judge this" }
    ])
    expect(assemble([])[0]!.moderation_verdict).toBe("safe")
  })

  it("gives a one-call record the row of its guard's text, however often and after however many texts", () => {
    const one = moderate({ fields: ["text"] })
    const rowOf = (raw: string) => preparation(one.prepare({ text: "x" })).assemble([raw])
    const texts = ["安全", "有害\nT9, T2", "I cannot judge this", ...Array.from({ length: 600 }, (_, i) => `odd ${i}`)]
    for (let round = 0; round < 2; round++) for (const raw of texts) expect(rowOf(raw)).toEqual(assemble([raw]))
    expect(rowOf("有害\nT2")).toEqual([
      { moderation_verdict: "harmful", moderation_categories: "T2", moderation_raw: "" }
    ])
  })
})
