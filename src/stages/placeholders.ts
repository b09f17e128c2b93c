/**
 * Tokens a translation must carry over unchanged: `{name}`, `{{x}}`, `${x}`, printf specifiers
 * (`%s`, `%d`, `%1$s`, `%.2f`), URLs, e-mail addresses, inline `code` and numbers, found as
 * span-patterns.ts finds them; where two overlap the first wins, so a number inside a URL or `{x1}`
 * belongs to that token. Numbers are compared normalised: full-width digits as ASCII, thousands
 * separators removed (`1,000` in the source matches `1000` in the translation).
 */
import { emails, firstWins, inlineCode, numbers, placeholderForms, urls } from "./span-patterns.ts"

const normalise = (token: string): string =>
  /^[0-9０-９]/.test(token)
    ? token
        .replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0))
        .replace(/[,，]/g, "")
        .replace("．", ".")
    : token

/** The protected tokens of `text`, in order of appearance. */
export const placeholders = (text: string): ReadonlyArray<string> =>
  firstWins([inlineCode(text), urls(text), emails(text), placeholderForms(text), numbers(text)]).map(([s, e]) =>
    text.slice(s, e)
  )

/** Tokens of `source` missing from `translation` (as a multiset: twice in, once out = lost once). */
export const lostPlaceholders = (source: string, translation: string): ReadonlyArray<string> => {
  const found = new Map<string, number>()
  for (const t of placeholders(translation)) {
    const k = normalise(t)
    found.set(k, (found.get(k) ?? 0) + 1)
  }
  const lost: Array<string> = []
  for (const t of placeholders(source)) {
    const k = normalise(t)
    const n = found.get(k) ?? 0
    if (n > 0) found.set(k, n - 1)
    else lost.push(t)
  }
  return lost
}

/** Longest token shown in a warning, in code points; longer ones are cut with "…". */
export const SHOWN = 80
/** Distinct tokens listed in one warning; the rest are counted. */
export const LISTED = 10

const shown = (token: string): string => {
  const oneLine = token.replace(/\s+/g, " ")
  const chars = [...oneLine]
  return chars.length <= SHOWN ? oneLine : `${chars.slice(0, SHOWN - 1).join("")}…`
}

/**
 * Tokens for a warning cell: each distinct one once (`×3` when repeated), at most SHOWN code
 * points each, at most LISTED of them (then "and N more").
 */
export const listTokens = (tokens: ReadonlyArray<string>): string => {
  const counts = new Map<string, number>()
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1)
  const distinct = [...counts]
  const listed = distinct.slice(0, LISTED).map(([t, n]) => (n > 1 ? `${shown(t)} ×${n}` : shown(t)))
  const more = distinct.length - LISTED
  return more > 0 ? `${listed.join(", ")} and ${more} more` : listed.join(", ")
}
