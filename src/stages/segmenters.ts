/**
 * The Intl.Segmenters that chunking splits with (sentences, then words, then graphemes), made at
 * their first use: the first Intl.Segmenter of a process costs ~9 ms (ICU's data), which every
 * run paid at start-up though most texts never need splitting.
 */
type Granularity = "sentence" | "word" | "grapheme"

const made = new Map<Granularity, Intl.Segmenter>()

/** The segmenter of `granularity` in the default locale, made once. */
export const segmenter = (granularity: Granularity): Intl.Segmenter => {
  let s = made.get(granularity)
  if (s === undefined) {
    s = new Intl.Segmenter(undefined, { granularity })
    made.set(granularity, s)
  }
  return s
}
