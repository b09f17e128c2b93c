/** The translate stage's protected spans: which spans each kind and pattern finds, and the patterns a job may give. */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { defaultProtect, Protect, protectedSpans } from "../../src/stages/protected-spans.ts"

const spans = (text: string, protect: Protect = defaultProtect) =>
  protectedSpans(protect)(text).map((s) => [text.slice(s.start, s.end), s.block] as const)

describe("protectedSpans", () => {
  it("finds, by default, fenced code blocks, inline code, URLs, e-mail addresses and placeholders", () => {
    const text =
      "設定は次の通り:\n```yaml\nname: x\n```\n`npm ci` を実行し、https://example.com/docsを見て、a.b@example.co.jp に {name} と %s を送る。"
    expect(spans(text)).toEqual([
      ["```yaml\nname: x\n```", true],
      ["`npm ci`", false],
      ["https://example.com/docs", false],
      ["a.b@example.co.jp", false],
      ["{name}", false],
      ["%s", false]
    ])
  })

  it("merges overlapping spans: a URL inside inline code, code inside a block", () => {
    expect(spans("see `curl https://x.io/a` now")).toEqual([["`curl https://x.io/a`", false]])
    expect(spans("~~~\n`a` https://x.io\n~~~")).toEqual([["~~~\n`a` https://x.io\n~~~", true]])
  })

  it("protects only the kinds listed, plus the job's patterns", () => {
    const protect = { kinds: ["urls"] as const, patterns: ["JIRA-[0-9]+"] }
    expect(spans("`x` {name} https://x.io と JIRA-42 を見る", protect)).toEqual([
      ["https://x.io", false],
      ["JIRA-42", false]
    ])
    expect(spans("```\ncode\n```", { kinds: [], patterns: [] })).toEqual([])
  })

  it("takes neither man-page quoting `foo' nor an unclosed fence as code", () => {
    expect(spans("type `show w' and `show c' for details")).toEqual([])
    expect(spans("```\nnever closed")).toEqual([])
  })
})

describe("protect option", () => {
  const decode = Schema.decodeUnknownEither(Protect)

  it("defaults to every kind and no patterns", () => {
    expect(Either.getOrThrow(decode({}))).toEqual(defaultProtect)
    expect(defaultProtect.kinds).toEqual(["code-blocks", "inline-code", "urls", "emails", "placeholders"])
  })

  it("refuses an invalid regular expression and one that matches the empty string", () => {
    expect(Either.isLeft(decode({ patterns: ["JIRA-(\\d+"] }))).toBe(true)
    expect(Either.isLeft(decode({ patterns: ["x*"] }))).toBe(true)
    expect(Either.isLeft(decode({ kinds: ["tables"] }))).toBe(true)
  })
})
