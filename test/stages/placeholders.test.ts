/** Placeholders a translation must keep. */
import { describe, expect, it } from "@effect/vitest"
import { listTokens, lostPlaceholders, placeholders, SHOWN } from "../../src/stages/placeholders.ts"

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

/** GPL-2's appendix (as a corpus holds it: each paragraph one line), where `show w' is man-page quoting, not code. */
const gplAppendix = [
  "Gnomovision version 69, Copyright (C) year name of author Gnomovision comes with ABSOLUTELY NO WARRANTY; for details type `show w'. This is free software, and you are welcome to redistribute it under certain conditions; type `show c' for details.",
  "The hypothetical commands `show w' and `show c' should show the appropriate parts of the General Public License.  Of course, the commands you use may be called something other than `show w' and `show c'; they could even be mouse-clicks or menu items--whatever suits your program.",
  "Yoyodyne, Inc., hereby disclaims all copyright interest in the program `Gnomovision' (which makes passes at compilers) written by James Hacker. See `man gnomovision` for more."
].join(" ")

describe("placeholder warnings on real text", () => {
  it("ends a URL where Japanese follows it directly, so a URL the translation keeps is not reported lost", () => {
    const source =
      "バグは https://gitlab.com/man-db/man-db/-/issuesに報告してください。詳細はhttps://www.gnu.org/licenses/を参照。"
    expect(placeholders(source)).toEqual(["https://gitlab.com/man-db/man-db/-/issues", "https://www.gnu.org/licenses/"])
    expect(
      lostPlaceholders(
        source,
        "Report bugs at https://gitlab.com/man-db/man-db/-/issues. See https://www.gnu.org/licenses/ for details."
      )
    ).toEqual([])
  })

  it("keeps a URL's balanced parentheses and drops a closing one it does not open", () => {
    expect(placeholders("(see https://en.wikipedia.org/wiki/Foo_(bar)) and (https://x.io/a).")).toEqual([
      "https://en.wikipedia.org/wiki/Foo_(bar)",
      "https://x.io/a"
    ])
  })

  it("does not take man-page quoting `foo' as inline code running on to a later backtick", () => {
    const tokens = placeholders(gplAppendix)
    expect(tokens.filter((t) => t.startsWith("`"))).toEqual(["`man gnomovision`"])
    for (const t of tokens) expect(t.length).toBeLessThan(40)
  })

  it("does not take a percentage before a word as a printf specifier", () => {
    expect(placeholders("50% done, 100% discount")).toEqual(["50", "100"])
  })
})

describe("listTokens", () => {
  it("lists each token once, with its count when repeated", () => {
    expect(listTokens(lostPlaceholders("1 April 1989, 1 copy, section 1 and 2", "April, a copy, a section"))).toBe(
      "1 ×3, 1989, 2"
    )
  })

  it("cuts a token to 80 characters and lists at most 10", () => {
    const long = `\`${"x".repeat(150)}\``
    expect(listTokens([long])).toBe(`${long.slice(0, 79)}…`)
    expect([...listTokens([long])].length).toBe(SHOWN)
    expect(listTokens(Array.from({ length: 14 }, (_, i) => `{p${i}}`))).toBe(
      "{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}, {p7}, {p8}, {p9} and 4 more"
    )
  })
})
