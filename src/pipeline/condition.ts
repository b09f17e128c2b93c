/**
 * `when`: a small, safe expression language over a record's columns, deciding per record whether a
 * stage runs. Parsed once and compiled to closures (never `eval` or `new Function`); evaluation
 * is total: it never throws, and a missing column is `undefined`.
 *
 * Grammar, loosest binding first (keywords are lower case):
 *   condition := or
 *   or        := and ("or" and)*
 *   and       := not ("and" not)*
 *   not       := "not" not | test
 *   test      := "(" or ")"
 *              | value ( ("==" | "!=" | "<" | "<=" | ">" | ">=") value
 *                      | "not"? "in" "[" (value ("," value)*)? "]"
 *                      | "is" "not"? "empty" )?
 *   value     := string | number | "true" | "false" | "null" | column
 *   string    := '…' | "…"   escapes: \\  \'  \"  (any other backslash is an error)
 *   number    := -?digits(.digits)?          e.g. 3, -1, 3.5
 *   column    := [A-Za-z_][A-Za-z0-9_]*  |  `any column name`   (escapes \\ and \`)
 * So precedence is: comparison / in / is empty, then not, then and, then or. `not` applies to a
 * whole test, as in SQL and Python: `not a == 'x'` is `not (a == 'x')`. A column named like a
 * keyword (`empty`, `in`, `null`, …) or with spaces or non-ASCII letters goes in backticks.
 *
 * Comparisons
 * - Two numbers compare numerically. A number and a number-looking string compare numerically
 *   too, because CSV values arrive as strings: with a CSV column `score` of "9.5", `score < 10`
 *   holds. Number-looking: optional sign, digits, optional decimals or exponent, surrounding
 *   spaces allowed ("10", " 3.5 ", "-2", "1e3"); "1,200" or "0x10" are not, and compare as strings.
 * - Otherwise both sides compare as strings, lexicographically by UTF-16 code unit; `==` on strings
 *   is exact (case and spaces count). Two string columns compare as strings even when both look
 *   like numbers ("9" > "10"); compare with a number literal to get numbers. Booleans compare as
 *   "true"/"false", so a CSV "true" equals `true`.
 * - `null` equals only null and missing (undefined); ordering (<, >, …) with a null or missing
 *   side is false, `!=` true. Lists and objects (JSONL) equal nothing and order against nothing:
 *   test them with `is empty`.
 * - `x in [a, b]` holds when `x == a` or `x == b` (same rules); `not in` is its negation.
 * Emptiness: undefined, null, "" or a whitespace-only string, or an empty list is empty.
 * A bare value as a test (`flag`) holds when it is not empty and not false, "false", 0 or "0"
 * (the CSV spelling of 0: the same record reads alike from CSV and JSONL).
 */
import { Data, Either } from "effect"

export class ConditionError extends Data.TaggedError("ConditionError")<{
  readonly expression: string
  /** 0-based index into `expression` (UTF-16 code units) where the problem was found. */
  readonly position: number
  readonly detail: string
}> {
  override get message() {
    return `when ${JSON.stringify(this.expression)}: ${this.detail} at position ${this.position}`
  }
}

export interface Condition {
  readonly source: string
  /** The columns the expression reads, in order of first appearance, each once. */
  readonly columns: ReadonlyArray<string>
  readonly test: (fields: Readonly<Record<string, unknown>>) => boolean
}

// ---------------------------------------------------------------------------------------------
// Tokens

type Token =
  | { readonly kind: "str" | "num"; readonly text: string; readonly value: string | number; readonly at: number }
  | { readonly kind: "col" | "word" | "op" | "punct"; readonly text: string; readonly at: number }
  | { readonly kind: "end"; readonly text: ""; readonly at: number }

const KEYWORDS = new Set(["and", "or", "not", "in", "is", "empty", "true", "false", "null"])

const isSpace = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || /\s/.test(c)
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"
const isIdentStart = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_"
const isIdentPart = (c: string | undefined) => c !== undefined && (isIdentStart(c) || isDigit(c))

const tokenize = (src: string): Either.Either<ReadonlyArray<Token>, ConditionError> => {
  const tokens: Array<Token> = []
  const fail = (at: number, detail: string) =>
    Either.left(new ConditionError({ expression: src, position: at, detail }))
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (isSpace(c)) {
      i++
      continue
    }
    const at = i
    // Quoted: 'string', "string", `column`.
    if (c === "'" || c === '"' || c === "`") {
      let text = ""
      i++
      while (i < src.length && src[i] !== c) {
        if (src[i] === "\\") {
          const next = src[i + 1]
          if (next === undefined) break // unterminated
          if (next !== "\\" && next !== c && !(c !== "`" && (next === "'" || next === '"')))
            return fail(i, `unknown escape ${JSON.stringify("\\" + next)} (escapes: \\\\ and the quote)`)
          text += next
          i += 2
          continue
        }
        text += src[i]
        i++
      }
      if (i >= src.length) return fail(at, c === "`" ? "unterminated column name" : "unterminated string")
      i++
      tokens.push(c === "`" ? { kind: "col", text, at } : { kind: "str", text, value: text, at })
      continue
    }
    // Number: -?digits(.digits)?
    if (isDigit(c) || (c === "-" && isDigit(src[i + 1]))) {
      let j = c === "-" ? i + 1 : i
      while (isDigit(src[j])) j++
      if (src[j] === "." && isDigit(src[j + 1])) {
        j++
        while (isDigit(src[j])) j++
      }
      if (isIdentPart(src[j]) || src[j] === ".")
        return fail(at, `malformed number ${JSON.stringify(src.slice(i, j + 1))}`)
      const text = src.slice(i, j)
      tokens.push({ kind: "num", text, value: Number(text), at })
      i = j
      continue
    }
    // Operators.
    const two = src.slice(i, i + 2)
    if (two === "==" || two === "!=" || two === "<=" || two === ">=") {
      tokens.push({ kind: "op", text: two, at })
      i += 2
      continue
    }
    if (c === "<" || c === ">") {
      tokens.push({ kind: "op", text: c, at })
      i++
      continue
    }
    if (c === "(" || c === ")" || c === "[" || c === "]" || c === ",") {
      tokens.push({ kind: "punct", text: c, at })
      i++
      continue
    }
    if (isIdentStart(c)) {
      let j = i + 1
      while (isIdentPart(src[j])) j++
      const word = src.slice(i, j)
      tokens.push({ kind: KEYWORDS.has(word) ? "word" : "col", text: word, at })
      i = j
      continue
    }
    const char = String.fromCodePoint(src.codePointAt(i)!)
    const hint =
      c === "="
        ? " (equality is ==)"
        : c === "&" || c === "|" || c === "!"
          ? " (use and, or, not)"
          : char > "\x7f"
            ? " (a column name with such characters goes in backticks)"
            : ""
    return fail(at, `unexpected ${JSON.stringify(char)}${hint}`)
  }
  tokens.push({ kind: "end", text: "", at: src.length })
  return Either.right(tokens)
}

// ---------------------------------------------------------------------------------------------
// Semantics (all total: no input makes them throw)

type Fields = Readonly<Record<string, unknown>>
type Value = (f: Fields) => unknown
type Test = (f: Fields) => boolean

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === "string" && v.trim() === "") || (Array.isArray(v) && v.length === 0)

const truthy = (v: unknown): boolean => !isEmpty(v) && v !== false && v !== "false" && v !== 0 && v !== "0"

const NUMBER_LOOKING = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/

/** A number for a number, or a number-looking string; undefined otherwise. */
const asNumber = (v: unknown): number | undefined =>
  typeof v === "number"
    ? v
    : typeof v === "bigint"
      ? Number(v)
      : typeof v === "string" && NUMBER_LOOKING.test(v)
        ? Number(v)
        : undefined

/** The string a primitive compares as; undefined for lists, objects, symbols and functions. */
const asText = (v: unknown): string | undefined =>
  typeof v === "string"
    ? v
    : typeof v === "number" || typeof v === "boolean" || typeof v === "bigint"
      ? String(v)
      : undefined

/** -1, 0 or 1; undefined when the two are neither equal nor ordered. */
const compare = (a: unknown, b: unknown): number | undefined => {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null) ? 0 : undefined
  if (typeof a === "number" || typeof b === "number" || typeof a === "bigint" || typeof b === "bigint") {
    const x = asNumber(a)
    const y = asNumber(b)
    if (x !== undefined && y !== undefined)
      return Number.isNaN(x) || Number.isNaN(y) ? undefined : x < y ? -1 : x > y ? 1 : 0
  }
  const x = asText(a)
  const y = asText(b)
  if (x === undefined || y === undefined) return undefined
  return x < y ? -1 : x > y ? 1 : 0
}

const comparators: Record<string, (c: number | undefined) => boolean> = {
  "==": (c) => c === 0,
  "!=": (c) => c !== 0,
  "<": (c) => c !== undefined && c < 0,
  "<=": (c) => c !== undefined && c <= 0,
  ">": (c) => c !== undefined && c > 0,
  ">=": (c) => c !== undefined && c >= 0
}

const anyOf = (parts: ReadonlyArray<Test>): Test => {
  if (parts.length === 1) return parts[0]!
  if (parts.length === 2) {
    const [a, b] = parts as [Test, Test]
    return (f) => a(f) || b(f)
  }
  return (f) => {
    for (const p of parts) if (p(f)) return true
    return false
  }
}

const allOf = (parts: ReadonlyArray<Test>): Test => {
  if (parts.length === 1) return parts[0]!
  if (parts.length === 2) {
    const [a, b] = parts as [Test, Test]
    return (f) => a(f) && b(f)
  }
  return (f) => {
    for (const p of parts) if (!p(f)) return false
    return true
  }
}

// ---------------------------------------------------------------------------------------------
// Parser: recursive descent straight to closures

/** A value known at parse time (a literal), so it is not re-evaluated per record. */
interface Operand {
  readonly get: Value
  readonly constant: boolean
  readonly value?: unknown
}

class Parser {
  private i = 0
  readonly columns = new Set<string>()
  constructor(
    private readonly src: string,
    private readonly tokens: ReadonlyArray<Token>
  ) {}

  private get peek(): Token {
    return this.tokens[this.i]!
  }
  private fail(detail: string, at = this.peek.at): never {
    throw new ConditionError({ expression: this.src, position: at, detail })
  }
  private isWord(w: string, t: Token | undefined = this.peek) {
    return t !== undefined && t.kind === "word" && t.text === w
  }
  private isPunct(p: string) {
    return this.peek.kind === "punct" && this.peek.text === p
  }
  private expect(kind: Token["kind"], text: string) {
    const t = this.peek
    if (t.kind !== kind || t.text !== text)
      this.fail(
        `expected ${JSON.stringify(text)}${t.kind === "end" ? " before the end" : `, got ${JSON.stringify(t.text)}`}`
      )
    this.i++
  }
  private unexpected(t: Token): never {
    const hint =
      t.kind === "col" && KEYWORDS.has(t.text.toLowerCase()) && this.src.slice(t.at, t.at + 1) !== "`"
        ? " (keywords are lower case)"
        : ""
    return this.fail(`unexpected ${JSON.stringify(t.text)}${hint}`, t.at)
  }

  parse(): Test {
    if (this.peek.kind === "end") this.fail("empty expression", 0)
    const test = this.or()
    const rest: Token = this.tokens[this.i]!
    if (rest.kind !== "end") this.unexpected(rest)
    return test
  }
  private or(): Test {
    const parts = [this.and()]
    while (this.isWord("or")) {
      this.i++
      parts.push(this.and())
    }
    return anyOf(parts)
  }
  private and(): Test {
    const parts = [this.not()]
    while (this.isWord("and")) {
      this.i++
      parts.push(this.not())
    }
    return allOf(parts)
  }
  private not(): Test {
    if (this.isWord("not")) {
      this.i++
      const inner = this.not()
      return (f) => !inner(f)
    }
    return this.test()
  }
  private test(): Test {
    if (this.isPunct("(")) {
      this.i++
      const inner = this.or()
      this.expect("punct", ")")
      return inner
    }
    const left = this.value()
    const t = this.peek
    if (t.kind === "op") {
      this.i++
      const right = this.value()
      const holds = comparators[t.text]!
      if (left.constant && right.constant) {
        const result = holds(compare(left.value, right.value))
        return () => result
      }
      const l = left.get
      if (right.constant) {
        const v = right.value
        return (f) => holds(compare(l(f), v))
      }
      const r = right.get
      return (f) => holds(compare(l(f), r(f)))
    }
    if (this.isWord("is")) {
      this.i++
      const negate = this.isWord("not")
      if (negate) this.i++
      this.expect("word", "empty")
      const l = left.get
      return negate ? (f) => !isEmpty(l(f)) : (f) => isEmpty(l(f))
    }
    if (this.isWord("in") || (this.isWord("not") && this.isWord("in", this.tokens[this.i + 1]))) {
      const negate = this.isWord("not")
      this.i += negate ? 2 : 1
      this.expect("punct", "[")
      const items: Array<Operand> = []
      if (!this.isPunct("]")) {
        items.push(this.value())
        while (this.isPunct(",")) {
          this.i++
          items.push(this.value())
        }
      }
      this.expect("punct", "]")
      const l = left.get
      let member: Test
      if (items.every((item) => item.constant)) {
        const values = items.map((item) => item.value)
        member = (f) => {
          const v = l(f)
          for (const item of values) if (compare(v, item) === 0) return true
          return false
        }
      } else {
        const gets = items.map((item) => item.get)
        member = (f) => {
          const v = l(f)
          for (const get of gets) if (compare(v, get(f)) === 0) return true
          return false
        }
      }
      return negate ? (f) => !member(f) : member
    }
    if (left.constant) {
      const result = truthy(left.value)
      return () => result
    }
    const l = left.get
    return (f) => truthy(l(f))
  }
  private value(): Operand {
    const t = this.peek
    switch (t.kind) {
      case "str":
      case "num": {
        this.i++
        const v = t.value
        return { get: () => v, constant: true, value: v }
      }
      case "col": {
        this.i++
        const name = t.text
        this.columns.add(name)
        // A column named like an Object.prototype member (`constructor`, `__proto__`, …) reads
        // the record's own field only; other names read directly (the hot path).
        return name in Object.prototype
          ? { get: (f) => (Object.hasOwn(f, name) ? f[name] : undefined), constant: false }
          : { get: (f) => f[name], constant: false }
      }
      case "word":
        if (t.text === "true" || t.text === "false" || t.text === "null") {
          this.i++
          const v = t.text === "null" ? null : t.text === "true"
          return { get: () => v, constant: true, value: v }
        }
    }
    return this.fail(
      t.kind === "end" ? "expected a value before the end" : `expected a value, got ${JSON.stringify(t.text)}`
    )
  }
}

/** Parses a `when` expression once; the returned `test` is evaluated per record. */
export const parseCondition = (source: string): Either.Either<Condition, ConditionError> =>
  Either.flatMap(tokenize(source), (tokens) => {
    const parser = new Parser(source, tokens)
    try {
      const test = parser.parse()
      return Either.right({ source, columns: [...parser.columns], test })
    } catch (e) {
      if (e instanceof ConditionError) return Either.left(e)
      throw e
    }
  })
