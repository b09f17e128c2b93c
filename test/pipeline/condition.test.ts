/** `when` expressions: parsed once, evaluated safely per record. */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { type ConditionError, parseCondition } from "../../src/pipeline/condition.ts"

const parse = (expr: string) => Either.getOrThrow(parseCondition(expr))
const holds = (expr: string, fields: Record<string, unknown>) => parse(expr).test(fields)
const failure = (expr: string): ConditionError =>
  Either.match(parseCondition(expr), {
    onLeft: (e) => e,
    onRight: () => expect.fail(`${JSON.stringify(expr)} parsed`)
  })

describe("condition", () => {
  describe("comparisons", () => {
    it("== holds when a column equals a string", () => {
      expect(holds("moderation_verdict == 'safe'", { moderation_verdict: "safe" })).toBe(true)
      expect(holds("moderation_verdict == 'safe'", { moderation_verdict: "harmful" })).toBe(false)
    })

    it("== on strings is exact: case and spaces count", () => {
      expect(holds("v == 'safe'", { v: "Safe" })).toBe(false)
      expect(holds("v == 'safe'", { v: "safe " })).toBe(false)
    })

    it("!= holds when a column differs from a string", () => {
      expect(holds('moderation_verdict != "safe"', { moderation_verdict: "harmful" })).toBe(true)
      expect(holds('moderation_verdict != "safe"', { moderation_verdict: "safe" })).toBe(false)
    })

    it("< and <= order numbers", () => {
      expect(holds("n < 2", { n: 1 })).toBe(true)
      expect(holds("n < 2", { n: 2 })).toBe(false)
      expect(holds("n <= 2", { n: 2 })).toBe(true)
    })

    it("> and >= order numbers, including negative and decimal literals", () => {
      expect(holds("n > -1", { n: 0 })).toBe(true)
      expect(holds("n > 3.5", { n: 3.5 })).toBe(false)
      expect(holds("n >= 3.5", { n: 3.5 })).toBe(true)
    })

    it("orders strings lexicographically", () => {
      expect(holds("name < 'b'", { name: "apple" })).toBe(true)
      expect(holds("name >= 'b'", { name: "banana" })).toBe(true)
    })

    it("compares a number-looking string (as CSV gives it) with a number literal numerically", () => {
      expect(holds("score >= 10", { score: "9.5" })).toBe(false) // as strings "9.5" > "10"
      expect(holds("score >= 10", { score: "10" })).toBe(true)
      expect(holds("score == 10", { score: " 10.0 " })).toBe(true)
      expect(holds("score < 0", { score: "-2" })).toBe(true)
    })

    it("compares two string columns as strings even when both look like numbers", () => {
      expect(holds("a > b", { a: "9", b: "10" })).toBe(true)
    })

    it("compares a string that only resembles a number with a number as strings", () => {
      expect(holds("n == 1200", { n: "1,200" })).toBe(false)
      expect(holds("n == 16", { n: "0x10" })).toBe(false)
    })

    it("compares columns with columns", () => {
      expect(holds("a == b", { a: "x", b: "x" })).toBe(true)
      expect(holds("a < b", { a: 1, b: 2 })).toBe(true)
    })

    it("treats null as equal only to null and to a missing column, and orders nothing against it", () => {
      expect(holds("x == null", { x: null })).toBe(true)
      expect(holds("x == null", {})).toBe(true)
      expect(holds("x == null", { x: "" })).toBe(false)
      expect(holds("x != null", { x: "a" })).toBe(true)
      expect(holds("x < 5", {})).toBe(false)
      expect(holds("x >= 5", { x: null })).toBe(false)
    })

    it("compares booleans with true and false, also in their CSV spelling", () => {
      expect(holds("flag == true", { flag: true })).toBe(true)
      expect(holds("flag == true", { flag: "true" })).toBe(true)
      expect(holds("flag == false", { flag: true })).toBe(false)
    })

    it("treats lists and objects as equal to nothing", () => {
      expect(holds("x == 'a'", { x: ["a"] })).toBe(false)
      expect(holds("x != 'a'", { x: { a: 1 } })).toBe(true)
    })
  })

  describe("membership", () => {
    it("in holds when the value is in the list", () => {
      expect(holds("lang in ['ja', 'en']", { lang: "ja" })).toBe(true)
      expect(holds("lang in ['ja', 'en']", { lang: "fr" })).toBe(false)
    })

    it("not in holds when the value is not in the list", () => {
      expect(holds("lang not in ['ja', 'en']", { lang: "fr" })).toBe(true)
      expect(holds("lang not in ['ja', 'en']", { lang: "en" })).toBe(false)
    })

    it("in compares like ==, so a CSV number is found among number literals", () => {
      expect(holds("n in [1, 2]", { n: "2" })).toBe(true)
    })

    it("in accepts columns in the list", () => {
      expect(holds("a in [b, 'z']", { a: "q", b: "q" })).toBe(true)
    })

    it("in an empty list never holds", () => {
      expect(holds("a in []", { a: "x" })).toBe(false)
      expect(holds("a not in []", { a: "x" })).toBe(true)
    })
  })

  describe("emptiness", () => {
    it("is empty holds for missing, null, empty, whitespace-only and empty-list values", () => {
      for (const body of [undefined, null, "", "  \n\t", "\u3000", []])
        expect(holds("body is empty", { body })).toBe(true)
      expect(holds("body is empty", {})).toBe(true)
    })

    it("is empty does not hold for text, numbers, false or a non-empty list", () => {
      for (const body of ["x", 0, false, ["a"]]) expect(holds("body is empty", { body })).toBe(false)
    })

    it("is not empty is the negation of is empty", () => {
      expect(holds("body is not empty", { body: "x" })).toBe(true)
      expect(holds("body is not empty", { body: " " })).toBe(false)
      expect(holds("body is not empty", {})).toBe(false)
    })
  })

  describe("boolean operators", () => {
    it("and holds when both sides hold", () => {
      expect(holds("a == 1 and b == 2", { a: 1, b: 2 })).toBe(true)
      expect(holds("a == 1 and b == 2", { a: 1, b: 3 })).toBe(false)
    })

    it("or holds when either side holds", () => {
      expect(holds("a == 1 or b == 2", { a: 0, b: 2 })).toBe(true)
      expect(holds("a == 1 or b == 2", { a: 0, b: 0 })).toBe(false)
    })

    it("not negates, and may be repeated", () => {
      expect(holds("not a == 1", { a: 1 })).toBe(false)
      expect(holds("not not a == 1", { a: 1 })).toBe(true)
    })

    it("chains more than two operands", () => {
      expect(holds("a and b and c", { a: 1, b: 1, c: 1 })).toBe(true)
      expect(holds("a and b and c", { a: 1, b: 1, c: "" })).toBe(false)
      expect(holds("a or b or c", { a: "", b: "", c: "x" })).toBe(true)
    })

    it("treats a bare column as true unless empty, false, 'false', 0 or '0'", () => {
      expect(holds("flag", { flag: "yes" })).toBe(true)
      expect(holds("flag", { flag: 1 })).toBe(true)
      for (const flag of [false, "false", 0, "0", "", " ", null, undefined, []])
        expect(holds("flag", { flag })).toBe(false)
    })

    it("treats bare literals by the same rule", () => {
      expect(holds("true", {})).toBe(true)
      expect(holds("false or null or 0 or ''", {})).toBe(false)
    })
  })

  describe("precedence", () => {
    const f = { a: "1", b: "", c: "1" }

    it("binds and tighter than or", () => {
      expect(holds("a or b and b", f)).toBe(true) // a or (b and b)
      expect(holds("b and b or a", f)).toBe(true) // (b and b) or a
    })

    it("binds not tighter than and and or", () => {
      expect(holds("not b and a", f)).toBe(true) // (not b) and a
      expect(holds("a or b and not c", f)).toBe(true) // a or (b and (not c))
    })

    it("applies not to a whole comparison", () => {
      expect(holds("not a == '1'", f)).toBe(false) // not (a == '1')
      expect(holds("not a in ['1']", f)).toBe(false)
      expect(holds("not b is empty", f)).toBe(false)
    })

    it("lets parentheses override precedence", () => {
      expect(holds("(a or b) and not c", f)).toBe(false)
      expect(holds("not (a and b)", f)).toBe(true)
      expect(holds("((a))", f)).toBe(true)
    })
  })

  describe("quoting", () => {
    it("reads single- and double-quoted strings", () => {
      expect(holds(`t == 'x' and u == "y"`, { t: "x", u: "y" })).toBe(true)
    })

    it("reads escaped quotes and backslashes in strings", () => {
      expect(holds("t == 'it\\'s'", { t: "it's" })).toBe(true)
      expect(holds('t == "say \\"hi\\""', { t: 'say "hi"' })).toBe(true)
      expect(holds("t == 'a\\\\b'", { t: "a\\b" })).toBe(true)
      expect(holds(`t == 'say \\"hi\\"'`, { t: 'say "hi"' })).toBe(true)
    })

    it("keeps the other quote, operators and keywords inside a string as text", () => {
      expect(holds(`t == "it's == or and"`, { t: "it's == or and" })).toBe(true)
    })

    it("reads non-ASCII strings", () => {
      expect(holds("lang_hint == '日本語 👨‍👩‍👧‍👦'", { lang_hint: "日本語 👨‍👩‍👧‍👦" })).toBe(true)
    })

    it("reads a backtick-quoted column name with spaces, keywords or non-ASCII letters", () => {
      expect(holds("`body text` == 'x'", { "body text": "x" })).toBe(true)
      expect(holds("`empty` is not empty", { empty: "no" })).toBe(true)
      expect(holds("`本文` == 'はい'", { 本文: "はい" })).toBe(true)
    })

    it("reads an escaped backtick in a column name", () => {
      expect(holds("`a\\`b` == 1", { "a`b": 1 })).toBe(true)
    })

    it("reads true, false and null as literals, not columns", () => {
      expect(holds("x == null and y == true and z == false", { x: null, y: true, z: false, null: 1, true: 2 })).toBe(
        true
      )
      expect(parse("x == null and y == true").columns).toEqual(["x", "y"])
    })

    it("reads only the record's own fields, not Object.prototype", () => {
      expect(holds("constructor is empty and toString is empty", {})).toBe(true)
      expect(holds("`__proto__` is empty", {})).toBe(true)
    })
  })

  describe("columns", () => {
    it("lists the columns it reads in order of first appearance, once each", () => {
      expect(parse("a == 'x' and (`b c` is empty or d in [e, 'f']) or a > 1").columns).toEqual(["a", "b c", "d", "e"])
    })

    it("lists no columns for an expression of literals", () => {
      expect(parse("1 < 2").columns).toEqual([])
    })

    it("keeps the source", () => {
      expect(parse("a == 1").source).toBe("a == 1")
    })
  })

  describe("evaluation is total", () => {
    it("never throws, whatever the record holds", () => {
      const c = parse("a > 3 and b in ['x'] and c is empty or d == 'x' or e")
      const odd = [{ nested: true }, [1], Object.create(null), Symbol("s"), 10n, Number.NaN, () => 1, new Date(0)]
      for (const v of odd) expect(() => c.test({ a: v, b: v, c: v, d: v, e: v })).not.toThrow()
    })

    it("never orders NaN", () => {
      expect(holds("n == 1 or n < 1 or n > 1", { n: Number.NaN })).toBe(false)
    })

    it.prop(
      "never throws on any record",
      [fc.dictionary(fc.constantFrom("a", "b", "c"), fc.anything())],
      ([fields]) => {
        const c = parse("a == 1 or a < 'x' or b in [1, 'y', null] or not c is empty or a")
        expect(typeof c.test(fields)).toBe("boolean")
      }
    )

    it.prop("parsing any string returns a result or a ConditionError, never throws", [fc.string()], ([s]) => {
      const result = parseCondition(s)
      if (Either.isLeft(result)) {
        expect(result.left._tag).toBe("ConditionError")
        expect(result.left.position).toBeGreaterThanOrEqual(0)
        expect(result.left.position).toBeLessThanOrEqual(s.length)
      }
    })
  })

  describe("properties", () => {
    const quote = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`

    it.prop("a quoted string literal equals exactly the text it quotes", [fc.string(), fc.string()], ([s, t]) => {
      const c = parse(`x == ${quote(s)}`)
      expect(c.test({ x: s })).toBe(true)
      expect(c.test({ x: t })).toBe(s === t)
    })

    it.prop(
      "a number-looking string compares with a number literal like the number it spells",
      [fc.integer(), fc.integer()],
      ([a, b]) => {
        expect(holds(`x < ${b}`, { x: String(a) })).toBe(a < b)
        expect(holds(`x == ${b}`, { x: String(a) })).toBe(a === b)
      }
    )

    it.prop(
      "not inverts any test",
      [fc.constantFrom("a == 'x'", "a in ['x', 'y']", "a is empty", "a", "a > 2 and a < 5"), fc.anything()],
      ([expr, a]) => {
        expect(holds(`not (${expr})`, { a })).toBe(!holds(expr, { a }))
      }
    )
  })

  describe("errors", () => {
    it("reports an empty expression", () => {
      expect(failure("").message).toBe('when "": empty expression at position 0')
      expect(failure("   ").detail).toBe("empty expression")
    })

    it("reports a dangling operator at the end", () => {
      expect(failure("x ==").message).toBe('when "x ==": expected a value before the end at position 4')
      expect(failure("a and").position).toBe(5)
      expect(failure("not").detail).toBe("expected a value before the end")
    })

    it("reports an operator where a value should be", () => {
      const e = failure("a == == b")
      expect([e.detail, e.position]).toEqual(['expected a value, got "=="', 5])
    })

    it("reports an unterminated string at its opening quote", () => {
      expect(failure("a == 'x").message).toBe(`when "a == 'x": unterminated string at position 5`)
      expect(failure('a == "x\\"').position).toBe(5)
    })

    it("reports an unterminated backtick column name", () => {
      expect([failure("`body text == 1").detail, failure("`body text == 1").position]).toEqual([
        "unterminated column name",
        0
      ])
    })

    it("reports an unknown escape at its backslash", () => {
      const e = failure("a == 'x\\ny'")
      expect(e.position).toBe(7)
      expect(e.detail).toMatch(/^unknown escape "\\\\n"/)
    })

    it("reports an unknown token with a hint", () => {
      expect(failure("a = 1").message).toBe('when "a = 1": unexpected "=" (equality is ==) at position 2')
      expect(failure("a && b").detail).toBe('unexpected "&" (use and, or, not)')
      expect(failure("a == 1 ; b").position).toBe(7)
      expect(failure("本文 is empty").detail).toMatch(
        /^unexpected "本" \(a column name with such characters goes in backticks\)/
      )
    })

    it("reports a malformed number", () => {
      expect(failure("a == 1.").detail).toBe('malformed number "1."')
      expect(failure("a == 12abc").position).toBe(5)
    })

    it("reports trailing input after a complete expression", () => {
      expect(failure("a == 1 b").message).toBe('when "a == 1 b": unexpected "b" at position 7')
      expect(failure("a == 1)").detail).toBe('unexpected ")"')
      expect(failure("a == b == c").position).toBe(7)
    })

    it("hints that keywords are lower case", () => {
      expect(failure("a AND b").detail).toBe('unexpected "AND" (keywords are lower case)')
    })

    it("reports an unclosed parenthesis or list", () => {
      expect(failure("(a or b").detail).toBe('expected ")" before the end')
      expect(failure("a in ['x'").detail).toBe('expected "]" before the end')
      expect(failure("a in 'x'").detail).toBe('expected "[", got "x"')
    })

    it("reports a misspelt is empty", () => {
      expect(failure("a is full").detail).toBe('expected "empty", got "full"')
      expect(failure("a not like 'x'").detail).toBe('unexpected "not"')
    })

    it("is a tagged error carrying the expression", () => {
      const e = failure("a ==")
      expect(e._tag).toBe("ConditionError")
      expect(e.expression).toBe("a ==")
      expect(e).toBeInstanceOf(Error)
    })
  })
})
