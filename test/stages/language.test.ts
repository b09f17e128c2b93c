/** Script detection for translate's `from: auto`. */
import { describe, expect, it } from "@effect/vitest"
import { detectLanguage } from "../../src/stages/language.ts"

describe("detectLanguage", () => {
  it("tells plain Japanese from plain English", () => {
    expect(detectLanguage("今日は良い天気です。")).toBe("ja")
    expect(detectLanguage("ｶﾀｶﾅだけ")).toBe("ja")
    expect(detectLanguage("It is a fine day.")).toBe("en")
  })

  it("calls Japanese with Latin product names Japanese, and English with a Japanese word English", () => {
    expect(detectLanguage("今日はGitHubのissueを見た")).toBe("ja")
    expect(detectLanguage("I love 寿司 and ramen in Tokyo")).toBe("en")
  })

  it("ignores URLs, e-mail addresses, code, digits and punctuation", () => {
    expect(detectLanguage("詳細は https://example.com/very/long/english/path/to/documentation を参照")).toBe("ja")
    expect(detectLanguage("連絡先: someone.with.a.long.name@example.com")).toBe("ja")
    expect(detectLanguage("`const answer = computeTheAnswer()` を実行")).toBe("ja")
    expect(detectLanguage("```\nfunction longEnglishCode() { return 1 }\n```\n説明です")).toBe("ja")
  })

  it("counts the Japanese that follows a URL directly", () => {
    expect(detectLanguage("See https://example.com/aを参照してください")).toBe("ja")
  })

  it("has no answer for text without letters", () => {
    expect(detectLanguage("12,345 — 67%!")).toBeUndefined()
    expect(detectLanguage("🇯🇵👍")).toBeUndefined()
  })
})
