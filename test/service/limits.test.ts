/** Measures the limits are defined in: code points (§4.6), bytes (§8), tokens. */
import { describe, expect, it } from "@effect/vitest"
import { bodyLimitFor, codePointLength, Limits, utf8Bytes } from "../../src/service/limits.ts"
import { countTokens, withinTokens } from "../../src/service/tokens.ts"

describe("limits", () => {
  it("counts code points as §4.6 says", () => {
    expect(codePointLength("abc")).toBe(3)
    expect(codePointLength("日本語")).toBe(3)
    expect(codePointLength("ｱｲｳ")).toBe(3) // half-width katakana
    expect(codePointLength("👨‍👩‍👧‍👦")).toBe(7) // ZWJ family: 4 emoji + 3 joiners
    expect(codePointLength("a\nb c")).toBe(5)
    expect(codePointLength("\ud800")).toBe(1) // a lone surrogate is one code point
  })

  it("knows each endpoint's body limit", () => {
    expect(bodyLimitFor("/v1/translate")).toBe(1_048_576)
    expect(bodyLimitFor("/v1/chat/completions")).toBe(4_194_304)
    expect(utf8Bytes("猫")).toBe(3)
    expect(Limits.embeddingDimension).toBe(1536)
  })

  it("checks token limits exactly, with a fast path for short texts", () => {
    const text = "token ".repeat(100)
    const n = countTokens(text)
    expect(withinTokens(text, n)).toBe(true)
    expect(withinTokens(text, n - 1)).toBe(false)
    expect(countTokens("")).toBe(0)
  })
})
