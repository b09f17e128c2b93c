/** The translate stage: direction, pass-through, chunk layout, rejoining, placeholder warnings. */
import { describe, expect, it } from "@effect/vitest"
import { StageInputError } from "../../src/pipeline/stage.ts"
import { translate } from "../../src/stages/translate.ts"
import { preparation, refusal } from "./prepare-result.ts"

const prepare = (options: Parameters<typeof translate>[0], fields: Record<string, unknown>) =>
  preparation(translate(options).prepare(fields))

describe("translate stage", () => {
  it("sends Japanese text to English with the detected direction, one request per field", () => {
    const p = prepare(
      { fields: ["title", "body"], to: "en" },
      { title: "今日は良い天気です。", body: "駅の近くに新しい店ができました。" }
    )
    expect(p.requests.map((r) => [r.endpoint, r.model, r.params])).toEqual([
      ["translate", "translate", { source_lang: "ja", target_lang: "en" }],
      ["translate", "translate", { source_lang: "ja", target_lang: "en" }]
    ])
    expect(p.assemble(["A good day.", "A new shop."])).toEqual([
      { title_en: "A good day.", body_en: "A new shop.", translate_warnings: null }
    ])
  })

  it("passes text already in the target language through unchanged, unsent, and counts it", () => {
    const p = prepare({ fields: ["body"], to: "en" }, { body: "Already English, thanks." })
    expect(p.requests).toHaveLength(0)
    expect(p.counts).toEqual({ translate_skipped: 1 })
    expect(p.assemble([])).toEqual([{ body_en: "Already English, thanks.", translate_warnings: null }])
  })

  it("keeps empty, whitespace-only and null values as they are, unsent and uncounted", () => {
    const p = prepare({ fields: ["a", "b", "c"], to: "ja" }, { a: "", b: "  \n ", c: null })
    expect(p.requests).toHaveLength(0)
    expect(p.counts).toBeUndefined()
    expect(p.assemble([])).toEqual([{ a_ja: "", b_ja: "  \n ", c_ja: null, translate_warnings: null }])
  })

  it("honours a fixed source language and configured output columns", () => {
    const p = prepare(
      { fields: ["body"], to: "ja", from: "en", columns: { body: "body_translated" }, warningsColumn: "warn" },
      { body: "東京 is great." }
    )
    expect(p.requests[0]!.params).toEqual({ source_lang: "en", target_lang: "ja" })
    expect(p.assemble(["東京は素晴らしい。"])).toEqual([{ body_translated: "東京は素晴らしい。", warn: null }])
  })

  it("fails a record whose field is missing, without a request", () => {
    const error = refusal(translate({ fields: ["body"], to: "en" }).prepare({ title: "x" }))
    expect(error).toBeInstanceOf(StageInputError)
    expect(error.message).toContain('"body"')
  })

  it("splits a text over 5,000 code points into labelled chunks and rejoins them with the source's whitespace", () => {
    const paragraph = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。".repeat(100)
    const body = `${paragraph}\n\n${paragraph}\n\n${paragraph}`
    const p = prepare({ fields: ["body"], to: "en" }, { body })
    expect(p.requests).toHaveLength(3)
    for (const r of p.requests) expect([...r.text].length).toBeLessThanOrEqual(5000)
    expect(p.requests.map((r) => r.label)).toEqual(p.requests.map((_, i) => `body chunk ${i + 1}/${p.requests.length}`))
    const out = p.assemble(p.requests.map((_, i) => `T${i}.`))[0]!.body_en as string
    // The paragraph breaks between chunks come from the source; runs of Japanese sentences get a space.
    expect(out.split("\n\n")).toHaveLength(3)
    expect(out.replace(/\n\n/g, " ")).toBe(p.requests.map((_, i) => `T${i}.`).join(" "))
  })

  it("names tokens the translation lost in the warnings column", () => {
    const p = prepare({ fields: ["msg"], to: "en" }, { msg: "残り3件です。合計10件です。3件ずつ、3回。" })
    expect(p.assemble(["3 left. 10 in all. 3 each, 3 times."])[0]!.translate_warnings).toBeNull()
    // Each lost token once, with its count: a long man page's repeated numbers are not listed over and over.
    expect(p.assemble(["Some left. Ten in all. Some each, some times."])[0]!.translate_warnings).toBe(
      "msg: lost 3 ×3, 10"
    )
  })

  it("sends protected spans as tokens and puts them back; one whose token was dropped is appended and named", () => {
    const p = prepare(
      { fields: ["msg"], to: "en" },
      { msg: "{name}さん、%s件のメッセージがあります。詳細は https://example.com/help を見てください。" }
    )
    expect(p.requests.map((r) => r.text)).toEqual([
      "{z0}さん、{z1}件のメッセージがあります。詳細は {z2} を見てください。"
    ])
    expect(p.assemble(["{z0}, you have {z1} messages. See {z2}."])[0]).toEqual({
      msg_en: "{name}, you have %s messages. See https://example.com/help.",
      translate_warnings: null
    })
    expect(p.assemble(["{z0}, you have {z1} messages. See the help page."])[0]).toEqual({
      msg_en: "{name}, you have %s messages. See the help page. https://example.com/help",
      translate_warnings: "msg: moved to a chunk's end https://example.com/help"
    })
  })

  it("gives different content keys to the two directions of the same text", () => {
    const toEn = prepare({ fields: ["t"], to: "en", from: "ja" }, { t: "テスト" })
    const toJa = prepare({ fields: ["t"], to: "ja", from: "en" }, { t: "テスト" })
    expect(toEn.requests[0]!.key).not.toBe(toJa.requests[0]!.key)
  })
})
