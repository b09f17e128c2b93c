/** Chunking for translate: nothing lost or duplicated, every chunk within the limit, breaks preferred in order. */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { chunkForTranslation, codePoints, joinChunks } from "../../src/stages/translation-chunking.ts"

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" })
/** Offsets in `text` where a grapheme cluster starts (and its end). */
const graphemeBounds = (text: string) => new Set([...[...graphemes.segment(text)].map((s) => s.index), text.length])

/** Random text: Japanese, English words, punctuation, emoji (ZWJ, flags, skin tones), combining marks, whitespace runs. */
const piece = fc.oneof(
  fc.constantFrom("吾輩", "は", "猫", "である", "名前", "まだ", "無い", "カタカナ", "漢字", "ｶﾀｶﾅ"),
  fc.constantFrom("the", "river", "light", "a", "supercalifragilistic", "GitHub", "x"),
  fc.constantFrom("。", "、", "，", ".", ",", ";", ":", "！", "?", "…", "「", "」"),
  fc.constantFrom("👨‍👩‍👧‍👦", "🇯🇵", "👍🏽", "❤️", "e\u0301", "ｶﾞ"),
  fc.constantFrom(" ", "  ", "\t", "\n", "\r\n", "\n\n", "\u3000", " \n \n ")
)
const text = fc.array(piece, { maxLength: 400 }).map((parts) => parts.join(""))

describe("chunkForTranslation", () => {
  it("gives back the source exactly, every chunk within the limit, trimmed, at grapheme boundaries (property)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 200 }), (source, limit) => {
        const parts = chunkForTranslation(source, limit)
        expect(parts.separators).toHaveLength(parts.chunks.length + 1)
        expect(joinChunks(parts)).toBe(source)
        const bounds = graphemeBounds(source)
        let offset = 0
        parts.chunks.forEach((chunk, i) => {
          expect(parts.separators[i]).toMatch(/^\s*$/u)
          offset += parts.separators[i]!.length
          expect(chunk).not.toBe("")
          expect(chunk).toBe(chunk.trim())
          // A chunk over the limit can only be a single grapheme cluster bigger than the limit.
          if (codePoints(chunk) > limit) expect([...graphemes.segment(chunk)]).toHaveLength(1)
          expect(bounds.has(offset)).toBe(true)
          offset += chunk.length
          expect(bounds.has(offset)).toBe(true)
        })
      }),
      { numRuns: 300 }
    )
  })

  it("counts code points as the spec does: a ZWJ family is 7", () => {
    expect(codePoints("👨‍👩‍👧‍👦")).toBe(7)
    const family = "👨‍👩‍👧‍👦".repeat(1000) // 7,000 code points, 1,000 graphemes
    const parts = chunkForTranslation(family)
    expect(parts.chunks.map(codePoints)).toEqual([4998, 2002])
    expect(joinChunks(parts)).toBe(family)
  })

  it("keeps text within the limit whole, its outer whitespace in the separators", () => {
    expect(chunkForTranslation("  今日は。\n")).toEqual({ chunks: ["今日は。"], separators: ["  ", "\n"] })
    expect(chunkForTranslation(" \n\t")).toEqual({ chunks: [], separators: [" \n\t"] })
    expect(chunkForTranslation("")).toEqual({ chunks: [], separators: [""] })
  })

  it("splits long Japanese prose without spaces at sentence ends", () => {
    const source = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。".repeat(400) // 12,800 code points, no line break
    const parts = chunkForTranslation(source)
    expect(parts.chunks.length).toBe(3)
    for (const c of parts.chunks) {
      expect(codePoints(c)).toBeLessThanOrEqual(5000)
      expect(c.endsWith("。")).toBe(true)
    }
    expect(parts.separators).toEqual(["", "", "", ""])
  })

  it("prefers a paragraph break to a later sentence end", () => {
    const para = (n: number) => "One sentence here. ".repeat(n).trim()
    const source = `${para(3)}\n\n${para(3)}`
    const parts = chunkForTranslation(source, 80)
    expect(parts.chunks).toEqual([para(3), para(3)])
    expect(parts.separators).toEqual(["", "\n\n", ""])
  })

  it("splits a sentence longer than the limit at clause breaks, then words", () => {
    const clauses = chunkForTranslation("雨が降ったので、道が混んでいて、駅まで歩いた", 10)
    expect(clauses.chunks).toEqual(["雨が降ったので、", "道が混んでいて、", "駅まで歩いた"])
    const words = chunkForTranslation("alpha beta gamma delta", 11)
    expect(words.chunks).toEqual(["alpha beta", "gamma delta"])
    expect(words.separators).toEqual(["", " ", ""])
  })

  it("keeps English with code and URLs intact within chunks", () => {
    const sentence =
      "Run `npm ci` and read https://example.com/docs/setup before you file a ticket at help@example.com. "
    const source = sentence.repeat(120).trim()
    const parts = chunkForTranslation(source)
    expect(joinChunks(parts)).toBe(source)
    for (const c of parts.chunks) {
      expect(codePoints(c)).toBeLessThanOrEqual(5000)
      expect(c.split("`").length % 2).toBe(1) // no inline code cut in half
    }
  })
})
