/**
 * Tokens a translation must carry over unchanged: `{name}`, `{{x}}`, `${x}`, printf specifiers
 * (`%s`, `%d`, `%1$s`, `%.2f`), URLs, e-mail addresses, inline `code` and numbers. One regex, left
 * to right, longest forms first, so a number inside a URL or `{x1}` belongs to that token. Numbers
 * are compared normalised: full-width digits as ASCII, thousands separators removed (`1,000` in
 * the source matches `1000` in the translation).
 */

const TOKEN = new RegExp(
  [
    "`[^`\\n]+`", // inline code
    "https?://[^\\s<>\"'`）」』】、。，]+", // URL (trailing punctuation trimmed below)
    "[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+", // e-mail address
    "\\{\\{[^{}\\n]*\\}\\}", // {{x}}
    "\\$\\{[^{}\\n]*\\}", // ${x}
    "\\{[\\w.:-]*\\}", // {name}, {0}
    "%(?:\\d+\\$)?[-+ 0#]*\\d*(?:\\.\\d+)?[sdifuxXeEgGc]", // printf
    "(?<![A-Za-z0-9０-９])[0-9０-９]+(?:[,，][0-9０-９]{3})*(?:[.．][0-9０-９]+)?(?![A-Za-z0-9０-９])" // number
  ].join("|"),
  "g"
)

const trimUrl = (t: string) => (/^https?:/.test(t) ? t.replace(/[.,;:!?)\]]+$/, "") : t)

const normalise = (token: string): string =>
  /^[0-9０-９]/.test(token)
    ? token
        .replace(/[０-９]/g, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0))
        .replace(/[,，]/g, "")
        .replace("．", ".")
    : token

/** The protected tokens of `text`, in order of appearance. */
export const placeholders = (text: string): ReadonlyArray<string> => [...text.matchAll(TOKEN)].map((m) => trimUrl(m[0]))

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
