/** Placeholders a translation must keep. */
import { describe, expect, it } from "@effect/vitest"
import { lostPlaceholders, placeholders } from "../../src/stages/placeholders.ts"

describe("placeholders", () => {
  it("finds every kind, in order", () => {
    expect(
      placeholders(
        "Hi {name}, {{count}} new for ${user}: %s and %1$d at 3.5% — see `npm ci`, https://x.io/a?b=1. Mail a@b.co or call 1,200"
      )
    ).toEqual([
      "{name}",
      "{{count}}",
      "${user}",
      "%s",
      "%1$d",
      "3.5",
      "`npm ci`",
      "https://x.io/a?b=1",
      "a@b.co",
      "1,200"
    ])
  })

  it("takes a number inside a URL or a placeholder as part of that token", () => {
    expect(placeholders("{x1} https://h.io/v2/42")).toEqual(["{x1}", "https://h.io/v2/42"])
  })

  it("does not take digits inside a word as a number", () => {
    expect(placeholders("svc3 uses T2 and 3件")).toEqual(["3"])
  })

  it("names what the translation lost, counting repeats", () => {
    expect(lostPlaceholders("{a} {a} {b}", "{a} {b}")).toEqual(["{a}"])
    expect(lostPlaceholders("{name}さん、%s件", "{name}, %s items")).toEqual([])
    expect(lostPlaceholders("https://example.com/help を見て", "See the help page.")).toEqual([
      "https://example.com/help"
    ])
  })

  it("matches numbers across thousands separators and full-width digits", () => {
    expect(lostPlaceholders("合計１，２００円", "1200 yen in total")).toEqual([])
    expect(lostPlaceholders("1,000 items", "千個")).toEqual(["1,000"])
  })
})
