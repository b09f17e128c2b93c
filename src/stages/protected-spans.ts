/**
 * The translate stage's `protect:` — spans of a text that are never sent for translation and come
 * back byte-identical: kinds (fenced code blocks, inline code, URLs, e-mail addresses,
 * placeholders; all five by default) plus the job's own regular expressions, checked when the job
 * is loaded. Overlapping spans are merged into one. A span that holds a fenced code block is a
 * block (cut out of the text sent, see protected-chunks.ts); the others are masked.
 */
import { Schema } from "effect"
import { emails, fencedBlocks, inlineCode, matches, placeholderForms, type Range, urls } from "./span-patterns.ts"

export const ProtectKind = Schema.Literal("code-blocks", "inline-code", "urls", "emails", "placeholders")
export type ProtectKind = typeof ProtectKind.Type
export const protectKinds: ReadonlyArray<ProtectKind> = ProtectKind.literals

/** Why `source` is not a usable pattern, or undefined. */
const patternProblem = (source: string): string | undefined => {
  let re: RegExp
  try {
    re = new RegExp(source, "u")
  } catch (e) {
    return `not a valid regular expression: ${(e as Error).message}`
  }
  return re.test("") ? "matches the empty string (it would protect nothing)" : undefined
}

const Pattern = Schema.String.pipe(Schema.filter((s) => patternProblem(s) ?? true))

export const Protect = Schema.Struct({
  kinds: Schema.optionalWith(Schema.Array(ProtectKind), { default: () => protectKinds }),
  /** JavaScript regular expressions (Unicode mode); every match is protected. */
  patterns: Schema.optionalWith(Schema.Array(Pattern), { default: () => [] })
})
export type Protect = typeof Protect.Type

export const defaultProtect: Protect = { kinds: protectKinds, patterns: [] }

export interface Span {
  readonly start: number
  readonly end: number
  /** Holds a fenced code block: cut out rather than masked. */
  readonly block: boolean
}

const finders: Readonly<Record<ProtectKind, (text: string) => ReadonlyArray<Range>>> = {
  "code-blocks": fencedBlocks,
  "inline-code": inlineCode,
  urls,
  emails,
  placeholders: placeholderForms
}

/** A finder of the protected spans of a text: ordered, non-overlapping (overlaps merged). */
export const protectedSpans = (protect: Protect): ((text: string) => ReadonlyArray<Span>) => {
  const patterns = protect.patterns.map((p) => new RegExp(p, "gu"))
  const kinds = protect.kinds.filter((k) => k !== "code-blocks")
  const blocks = protect.kinds.includes("code-blocks")
  return (text) => {
    const found: Array<Span> = []
    if (blocks) for (const [start, end] of fencedBlocks(text)) found.push({ start, end, block: true })
    for (const k of kinds) for (const [start, end] of finders[k](text)) found.push({ start, end, block: false })
    for (const re of patterns) for (const [start, end] of matches(re, text)) found.push({ start, end, block: false })
    found.sort((a, b) => a.start - b.start)
    const merged: Array<Span> = []
    for (const s of found) {
      const last = merged[merged.length - 1]
      if (last !== undefined && s.start < last.end)
        merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, s.end), block: last.block || s.block }
      else merged.push(s)
    }
    return merged
  }
}
