/**
 * `when`: a small, safe expression language over a record's columns (parsed once, compiled to
 * closures; never `eval`). Grammar, loosest binding first:
 *   or      := and ("or" and)*
 *   and     := not ("and" not)*
 *   not     := "not" not | test
 *   test    := value (("==" | "!=" | "<" | "<=" | ">" | ">=") value
 *                    | "not"? "in" "[" value ("," value)* "]"
 *                    | "is" "not"? "empty")?
 *            | "(" or ")"
 *   value   := 'string' | "string" | number | true | false | null | column | `any column`
 * Comparisons: two numbers, or a number and a numeric string (CSV values arrive as strings),
 * compare as numbers; otherwise as strings (`==` on strings is exact). Empty: undefined, null, a
 * blank string or an empty array. A bare column is true when not empty, false, "false" or 0.
 * Evaluation is total: a missing column is undefined, never an error.
 */
import { Data, Either } from "effect"

export class ConditionError extends Data.TaggedError("ConditionError")<{
  readonly expression: string
  readonly position: number
  readonly detail: string
}> {
  override get message() {
    return `when ${JSON.stringify(this.expression)}: ${this.detail} at position ${this.position}`
  }
}

export interface Condition {
  readonly source: string
  /** The columns the expression reads. */
  readonly columns: ReadonlyArray<string>
  readonly test: (fields: Readonly<Record<string, unknown>>) => boolean
}

type Token =
  | { readonly kind: "str" | "num" | "col" | "word" | "op" | "punct"; readonly text: string; readonly value: unknown; readonly at: number }
  | { readonly kind: "end"; readonly text: ""; readonly value: undefined; readonly at: number }

const WORDS = new Set(["and", "or", "not", "in", "is", "empty", "true", "false", "null"])

const tokenize = (src: string): Either.Either<ReadonlyArray<Token>, ConditionError> => {
  const tokens: Array<Token> = []
  const fail = (at: number, detail: string) => Either.left(new ConditionError({ expression: src, position: at, detail }))
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (/\s/.test(c)) {
      i++
      continue
    }
    const at = i
    if (c === "'" || c === '"' || c === "`") {
      let text = ""
      i++
      while (i < src.length && src[i] !== c) {
        if (src[i] === "\\" && i + 1 < src.length) i++
        text += src[i]
        i++
      }
      if (i >= src.length) return fail(at, c === "`" ? "unterminated column name" : "unterminated string")
      i++
      tokens.push({ kind: c === "`" ? "col" : "str", text, value: text, at })
      continue
    }
    const num = /^-?\d+(\.\d+)?/.exec(src.slice(i))
    if (num && (c !== "-" || /\d/.test(src[i + 1] ?? ""))) {
      tokens.push({ kind: "num", text: num[0], value: Number(num[0]), at })
      i += num[0].length
      continue
    }
    const op = /^(==|!=|<=|>=|<|>)/.exec(src.slice(i))
    if (op) {
      tokens.push({ kind: "op", text: op[0], value: op[0], at })
      i += op[0].length
      continue
    }
    if ("()[],".includes(c)) {
      tokens.push({ kind: "punct", text: c, value: c, at })
      i++
      continue
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))
    if (ident) {
      const word = ident[0]
      tokens.push(WORDS.has(word) ? { kind: "word", text: word, value: word, at } : { kind: "col", text: word, value: word, at })
      i += word.length
      continue
    }
    return fail(at, `unexpected ${JSON.stringify(c)}`)
  }
  tokens.push({ kind: "end", text: "", value: undefined, at: src.length })
  return Either.right(tokens)
}

type Fields = Readonly<Record<string, unknown>>
type Value = (f: Fields) => unknown
type Test = (f: Fields) => boolean

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === "string" && v.trim() === "") || (Array.isArray(v) && v.length === 0)
const truthy = (v: unknown) => !isEmpty(v) && v !== false && v !== "false" && v !== 0
const asNumber = (v: unknown): number | undefined =>
  typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v)) ? Number(v) : undefined

/** -1, 0, 1, or undefined when the two cannot be ordered (a null or a missing value). */
const compare = (a: unknown, b: unknown): number | undefined => {
  if (a === undefined || a === null || b === undefined || b === null) return a == b ? 0 : undefined
  if (typeof a === "number" || typeof b === "number") {
    const x = asNumber(a)
    const y = asNumber(b)
    if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0
  }
  const x = typeof a === "string" ? a : String(a)
  const y = typeof b === "string" ? b : String(b)
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
  private isWord(w: string) {
    return this.peek.kind === "word" && this.peek.text === w
  }
  private expect(kind: Token["kind"], text: string) {
    const t: Token = this.peek
    if (t.kind !== kind || t.text !== text) this.fail(`expected ${JSON.stringify(text)}${t.kind === "end" ? " before the end" : `, got ${JSON.stringify(t.text)}`}`)
    this.i++
  }

  parse(): Test {
    if (this.peek.kind === "end") this.fail("empty expression")
    const t = this.or()
    const rest = this.tokens[this.i]!
    if (rest.kind !== "end") this.fail(`unexpected ${JSON.stringify(rest.text)}`, rest.at)
    return t
  }
  private or(): Test {
    const parts = [this.and()]
    while (this.isWord("or")) {
      this.i++
      parts.push(this.and())
    }
    return parts.length === 1 ? parts[0]! : (f) => parts.some((p) => p(f))
  }
  private and(): Test {
    const parts = [this.not()]
    while (this.isWord("and")) {
      this.i++
      parts.push(this.not())
    }
    return parts.length === 1 ? parts[0]! : (f) => parts.every((p) => p(f))
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
    if (this.peek.kind === "punct" && this.peek.text === "(") {
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
      const ok = comparators[t.text]!
      return (f) => ok(compare(left(f), right(f)))
    }
    if (this.isWord("is")) {
      this.i++
      const negate = this.isWord("not")
      if (negate) this.i++
      this.expect("word", "empty")
      return negate ? (f) => !isEmpty(left(f)) : (f) => isEmpty(left(f))
    }
    if (this.isWord("in") || (this.isWord("not") && this.tokens[this.i + 1]?.text === "in")) {
      const negate = this.isWord("not")
      this.i += negate ? 2 : 1
      this.expect("punct", "[")
      const items = [this.value()]
      while (this.peek.kind === "punct" && this.peek.text === ",") {
        this.i++
        items.push(this.value())
      }
      this.expect("punct", "]")
      const member = (f: Fields) => {
        const v = left(f)
        return items.some((item) => compare(v, item(f)) === 0)
      }
      return negate ? (f) => !member(f) : member
    }
    return (f) => truthy(left(f))
  }
  private value(): Value {
    const t = this.peek
    switch (t.kind) {
      case "str":
      case "num": {
        this.i++
        const v = t.value
        return () => v
      }
      case "col": {
        this.i++
        const name = t.text
        this.columns.add(name)
        return (f) => f[name]
      }
      case "word":
        if (t.text === "true" || t.text === "false" || t.text === "null") {
          this.i++
          const v = t.text === "null" ? null : t.text === "true"
          return () => v
        }
    }
    return this.fail(t.kind === "end" ? "expected a value before the end" : `expected a value, got ${JSON.stringify(t.text)}`)
  }
}

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
