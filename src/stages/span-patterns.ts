/**
 * The spans of a text a translation must not touch, found one way for both uses: the translate
 * stage's `protect:` (protected-spans.ts: not sent, put back as they were) and the warnings that
 * name a token the translation lost (placeholders.ts). Each finder returns [start, end) offsets.
 * - URLs are ASCII (a URL runs to the first character a URL cannot hold, so one followed directly
 *   by Japanese ends there); trailing punctuation, and a closing bracket with no opening one, are
 *   not part of it.
 * - Inline code is `…` within one line and at most 200 characters; man-page quoting `foo' is not
 *   code, and its backtick never opens a code span that would run on to a later backtick.
 * - A fenced code block runs from a line of ``` or ~~~ to the closing line of the same fence;
 *   one never closed is not a block (prose after a stray fence is translated).
 */

export type Range = readonly [start: number, end: number]

const FENCE = /^ {0,3}(`{3,}|~{3,})[^\n]*\n(?:[\s\S]*?\n)? {0,3}\1[`~]*[ \t]*$/gm
/** Man-page quoting (group 1: skipped), else inline code. */
const INLINE_CODE = /(`[^`'\n]{1,200}'(?![\w`]))|`[^`\n]{1,200}`/g
const URL = /https?:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&()*+,;=%]+/g
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g
const PLACEHOLDER =
  /\{\{[^{}\n]*\}\}|\$\{[^{}\n]*\}|\{[\w.:-]*\}|%(?:\d+\$)?[-+0#]*\d*(?:\.\d+)?[sdifuxXeEgGc](?![A-Za-z])/g
const NUMBER = /(?<![A-Za-z0-9０-９])[0-9０-９]+(?:[,，][0-9０-９]{3})*(?:[.．][0-9０-９]+)?(?![A-Za-z0-9０-９])/g

const all = (re: RegExp, text: string): Array<Range> =>
  [...text.matchAll(re)].filter((m) => m[0] !== "").map((m) => [m.index, m.index + m[0].length] as const)

/** A URL's end without trailing punctuation or an unbalanced closing bracket. */
const urlEnd = (url: string): number => {
  let end = url.length
  for (;;) {
    const last = url[end - 1]!
    if (/[.,;:!?*'"]/.test(last)) end--
    else if (last === ")" || last === "]") {
      const open = last === ")" ? "(" : "["
      const body = url.slice(0, end)
      if (body.split(open).length >= body.split(last).length) break
      end--
    } else break
  }
  return end
}

// A quick look for the one character a form cannot do without spares the full scan of most texts.
export const fencedBlocks = (text: string): Array<Range> =>
  text.includes("```") || text.includes("~~~") ? all(FENCE, text) : []
export const inlineCode = (text: string): Array<Range> =>
  [...text.matchAll(INLINE_CODE)].filter((m) => m[1] === undefined).map((m) => [m.index, m.index + m[0].length])
export const urls = (text: string): Array<Range> =>
  [...text.matchAll(URL)].map((m) => [m.index, m.index + urlEnd(m[0])] as const)
export const emails = (text: string): Array<Range> => (text.includes("@") ? all(EMAIL, text) : [])
export const placeholderForms = (text: string): Array<Range> => all(PLACEHOLDER, text)
export const numbers = (text: string): Array<Range> => all(NUMBER, text)

/** Every match of a user's pattern (compiled with `g`), empty matches skipped. */
export const matches = (re: RegExp, text: string): Array<Range> => all(re, text)

/**
 * Ranges from several finders as non-overlapping ones, in order: where two overlap, the one that
 * starts first wins (the longer, at the same start); a range inside an earlier one is dropped.
 */
export const firstWins = (lists: ReadonlyArray<ReadonlyArray<Range>>): Array<Range> => {
  const sorted = lists.flat().sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const out: Array<Range> = []
  for (const r of sorted) if (out.length === 0 || r[0] >= out[out.length - 1]![1]) out.push(r)
  return out
}
