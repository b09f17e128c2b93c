/**
 * Splits text into chunks under a size limit, at sentence boundaries where possible (then words,
 * then graphemes — never inside a grapheme cluster). Concatenating the chunks gives back the text
 * exactly. Each piece is measured once and chunk sizes are sums of piece sizes: exact for code
 * points, an upper bound for BPE tokens (merges across a boundary only lower the count), and
 * linear in the text's length. Segmentation runs per paragraph: Intl.Segmenter's cost grows faster
 * than linearly with input length.
 */
import { segmenter } from "./segmenters.ts"

interface Piece {
  readonly text: string
  readonly size: number
}

const WINDOW = 8000

/**
 * Windows of at most WINDOW code units, cut at the last line break, else sentence end, else
 * white space inside the window (never inside a surrogate pair).
 */
function* windows(text: string): Generator<string> {
  let start = 0
  while (text.length - start > WINDOW) {
    const slice = text.slice(start, start + WINDOW)
    let cut = slice.lastIndexOf("\n") + 1
    if (cut < WINDOW / 2) cut = Math.max(cut, lastMatchEnd(slice, /[.!?。！？]\s*/g))
    if (cut < WINDOW / 2) cut = Math.max(cut, lastMatchEnd(slice, /\s+/g))
    if (cut <= 0) cut = WINDOW - (/[\ud800-\udbff]/.test(slice[WINDOW - 1]!) ? 1 : 0)
    yield slice.slice(0, cut)
    start += cut
  }
  if (start < text.length) yield text.slice(start)
}

const lastMatchEnd = (s: string, re: RegExp): number => {
  let end = 0
  for (const m of s.matchAll(re)) end = m.index + m[0].length
  return end
}

/** Pieces of `text`, each within `limit`, in order. */
function* pieces(text: string, limit: number, measure: (s: string) => number): Generator<Piece> {
  const levels = [segmenter("sentence"), segmenter("word"), segmenter("grapheme")]
  function* split(segment: string, level: number): Generator<Piece> {
    const size = measure(segment)
    if (size <= limit || level >= levels.length) {
      yield { text: segment, size }
      return
    }
    for (const { segment: part } of levels[level]!.segment(segment)) yield* split(part, level + 1)
  }
  for (const window of windows(text)) yield* split(window, 0)
}

/** Chunks whose `measure` is at most `limit` (a single grapheme over the limit stands alone). */
export const chunkText = (text: string, limit: number, measure: (s: string) => number): Array<string> => {
  if (text === "") return []
  if (measure(text) <= limit) return [text]
  const chunks: Array<string> = []
  let current = ""
  let size = 0
  for (const piece of pieces(text, limit, measure)) {
    if (current !== "" && size + piece.size > limit) {
      chunks.push(current)
      current = ""
      size = 0
    }
    current += piece.text
    size += piece.size
  }
  if (current !== "") chunks.push(current)
  return chunks
}
