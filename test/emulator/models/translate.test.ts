/**
 * The translate stand-in carries protected tokens over verbatim (docs/emulator.md), or
 * drops one whole — the documented ~1 in 16, by its FNV-1a hash — never cut, merged or recased.
 */
import { describe, expect, it } from "@effect/vitest"
import { dropsToken, translate } from "../../../src/emulator/models/translate.ts"

const cases: ReadonlyArray<{
  readonly what: string
  readonly from: "en" | "ja"
  readonly text: string
  readonly tokens: ReadonlyArray<string>
}> = [
  { what: "a phone number", from: "en", text: "Call +81-3-1234-5678 today.", tokens: ["+81-3-1234-5678"] },
  { what: "an ISO date", from: "en", text: "The contract ends on 2025-03-31.", tokens: ["2025-03-31"] },
  { what: "a version", from: "en", text: "Please upgrade to v2.3.1 first.", tokens: ["v2.3.1"] },
  {
    what: "percent, dollar and yen amounts",
    from: "en",
    text: "Sales rose 50% to $5 million, about ¥980 each.",
    tokens: ["50%", "$5", "¥980"]
  },
  {
    what: "HTML tags",
    from: "en",
    text: 'Press <b>Save</b> then read <a href="/help">the help</a>.',
    tokens: ["<b>", "</b>", '<a href="/help">', "</a>"]
  },
  {
    what: "a URL with a query string, mid-sentence",
    from: "en",
    text: "Open https://example.com/search?q=cats&page=2 and look. Then rest.",
    tokens: ["https://example.com/search?q=cats&page=2"]
  },
  {
    what: "a URL with a query string at the end of a sentence",
    from: "ja",
    text: "詳しくはhttps://example.com/docs?id=7を見てください。",
    tokens: ["https://example.com/docs?id=7"]
  },
  {
    what: "ZWJ emoji",
    from: "ja",
    text: "開発者👩‍💻の家族👨‍👩‍👧と旗🏳️‍🌈。",
    tokens: ["👩‍💻", "👨‍👩‍👧", "🏳️‍🌈"]
  }
]

const other = (l: "en" | "ja") => (l === "en" ? "ja" : "en")

describe("the translate stand-in keeps protected tokens verbatim", () => {
  for (const c of cases) {
    it(`${c.what}: ${c.tokens.join(" ")}`, () => {
      // Tokens chosen outside the documented drop share, so each must come through.
      for (const token of c.tokens) expect(dropsToken(token), token).toBe(false)
      const out = translate(c.text, c.from, other(c.from))
      for (const token of c.tokens) expect(out, out).toContain(token)
    })
  }

  it("does not capitalise a URL that opens a sentence (ja→en)", () => {
    const url = "https://example.com/docs?id=7"
    const out = translate(`${url} を見てください。`, "ja", "en")
    expect(out).toContain(` ${url} `)
  })

  it("drops a token of the documented share whole: no piece of it is left", () => {
    const url = "https://example.com/a?b=1"
    expect(dropsToken(url)).toBe(true)
    const out = translate(`Visit ${url} now. Thanks.`, "en", "ja")
    expect(out).not.toContain("https://")
    expect(out).not.toContain("b=1")
  })
})
