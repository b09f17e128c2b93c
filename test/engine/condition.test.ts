/** `when` expressions: parsed once, evaluated safely per record. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseCondition } from "../../src/engine/condition.ts"

const holds = (expr: string, fields: Record<string, unknown>) => Either.getOrThrow(parseCondition(expr)).test(fields)
const error = (expr: string) => Either.match(parseCondition(expr), { onLeft: (e) => e.message, onRight: () => "parsed" })

describe("condition", () => {
  it("compares a column with a string for equality and inequality", () => {
    expect(holds("moderation_verdict == 'safe'", { moderation_verdict: "safe" })).toBe(true)
    expect(holds("moderation_verdict == 'safe'", { moderation_verdict: "harmful" })).toBe(false)
    expect(holds('moderation_verdict != "safe"', { moderation_verdict: "harmful" })).toBe(true)
  })

  it("compares numeric strings (as CSV gives them) with numbers numerically", () => {
    expect(holds("score >= 10", { score: "9.5" })).toBe(false)
    expect(holds("score >= 10", { score: "10" })).toBe(true)
    expect(holds("score < 2", { score: 1 })).toBe(true)
    expect(holds("score > -1", { score: "0" })).toBe(true)
  })

  it("tests membership with in and not in", () => {
    expect(holds("lang in ['ja', 'en']", { lang: "ja" })).toBe(true)
    expect(holds("lang not in ['ja', 'en']", { lang: "fr" })).toBe(true)
    expect(holds("n in [1, 2]", { n: "2" })).toBe(true)
  })

  it("tests emptiness: missing, null, blank strings and empty arrays are empty", () => {
    for (const v of [undefined, null, "", "  ", []]) expect(holds("body is empty", { body: v })).toBe(true)
    expect(holds("body is not empty", { body: "x" })).toBe(true)
    expect(holds("body is not empty", {})).toBe(false)
  })

  it("binds not tighter than and, and and tighter than or; parentheses override", () => {
    const f = { a: "1", b: "", c: "1" }
    expect(holds("a or b and not c", f)).toBe(true) // a or (b and (not c))
    expect(holds("(a or b) and not c", f)).toBe(false)
    expect(holds("not a == '1'", f)).toBe(false)
  })

  it("treats a bare column as true unless empty, false, 'false' or 0", () => {
    expect(holds("flag", { flag: "yes" })).toBe(true)
    for (const v of [false, "false", 0, "", null]) expect(holds("flag", { flag: v })).toBe(false)
  })

  it("reads quoted strings with escapes and backtick-quoted column names", () => {
    expect(holds("`body text` == 'it\\'s'", { "body text": "it's" })).toBe(true)
    expect(holds('t == "say \\"hi\\""', { t: 'say "hi"' })).toBe(true)
    expect(holds("x == null and y == true", { x: null, y: true })).toBe(true)
  })

  it("lists the columns it reads", () => {
    expect(Either.getOrThrow(parseCondition("a == 'x' and (`b c` is empty or d in [e])")).columns).toEqual(["a", "b c", "d", "e"])
  })

  it("never throws while evaluating, whatever the record", () => {
    const c = Either.getOrThrow(parseCondition("a > 3 and b in ['x'] and c is empty"))
    expect(() => c.test({ a: { nested: true }, b: [1], c: 5 })).not.toThrow()
  })

  it("reports a syntax error with its position", () => {
    expect(error("")).toBe('when "": empty expression at position 0')
    expect(error("a ==")).toBe('when "a ==": expected a value before the end at position 4')
    expect(error("a == 'x")).toBe(`when "a == 'x": unterminated string at position 5`)
    expect(error("a = 1")).toMatch(/unexpected "=" at position 2/)
    expect(error("a == 1 b")).toMatch(/unexpected "b" at position 7/)
    expect(error("a in ['x'")).toMatch(/expected "]" before the end/)
    expect(error("a is full")).toMatch(/expected "empty", got "full"/)
  })
})
