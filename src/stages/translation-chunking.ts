/**
 * Splits text for translate (spec §4.6: at most 5,000 code points per request) into chunks and
 * the whitespace between them. The whitespace is kept from the source and never sent, so
 * `separators[0] + chunks[0] + separators[1] + … + chunks[n-1] + separators[n]` is the source,
 * exactly. Splitting prefers, in order: blank lines, line breaks, sentence ends
 * (Intl.Segmenter), clause breaks (、，,;；:：), word boundaries (Intl.Segmenter), and only as a
 * last resort a cut between grapheme clusters (never inside one). Pieces are packed greedily so
 * chunks stay few and full. Intl.Segmenter's cost grows faster than linearly with its input, so it runs on
 * windows of a few thousand code units, the last (possibly cut) segment of a window carried into
 * the next: linear in the text's length.
 */
import { codePointLength, Limits } from "../service/limits.ts"
import { segmenter } from "./segmenters.ts"

export interface TranslationChunks {
  readonly chunks: ReadonlyArray<string>
  /** Whitespace before, between and after the chunks: `chunks.length + 1` of them. */
  readonly separators: ReadonlyArray<string>
}

/** Code points, as the spec counts them (a ZWJ emoji by its components): the client's own count. */
export const codePoints = codePointLength

const WINDOW = 4000

/** Cut at the end of each match of `re` (the break stays with the left part). */
const splitAfter =
  (re: RegExp) =>
  (text: string): Array<string> => {
    const out: Array<string> = []
    let start = 0
    for (const m of text.matchAll(re)) {
      const end = m.index + m[0].length
      if (end > start && end < text.length) {
        out.push(text.slice(start, end))
        start = end
      }
    }
    out.push(text.slice(start))
    return out
  }

/**
 * Segments with `segmenter` in windows: each window's last segment may be cut by the window's
 * end, so it is carried into the next window and segmented again (unless it has grown past
 * several windows: then it is a boundary candidate for the coarser levels only).
 */
const segmentWindowed =
  (granularity: "sentence" | "word" | "grapheme") =>
  (text: string): Array<string> => {
    const out: Array<string> = []
    let carry = ""
    let pos = 0
    while (pos < text.length || carry !== "") {
      let end = Math.min(text.length, pos + WINDOW)
      // Never end a window between the two halves of a surrogate pair.
      if (end < text.length && /[\ud800-\udbff]/.test(text[end - 1]!)) end--
      const window = carry + text.slice(pos, end)
      pos = end
      const segs = Array.from(segmenter(granularity).segment(window), (s) => s.segment)
      if (pos >= text.length) {
        out.push(...segs)
        break
      }
      const last = segs.pop()!
      out.push(...segs)
      carry = last.length > 3 * WINDOW ? (out.push(last), "") : last
    }
    return out
  }

type Splitter = (text: string) => Array<string>
type Size = (text: string) => number

const LEVELS: ReadonlyArray<Splitter> = [
  splitAfter(/\n[ \t\u3000]*\n\s*/g), // blank lines (and the whitespace after them)
  splitAfter(/\n\s*/g), // line breaks
  segmentWindowed("sentence"),
  splitAfter(/[、，,;；:：]\s*/g), // clause breaks
  segmentWindowed("word")
]

/**
 * Pieces of `text` (concatenated: `text`), each within `limit` code points (or one grapheme): a
 * part that fits stays whole; one that does not is split at the next finer level. Packing happens
 * once, over all pieces, so no chunk is left short where a finer split was needed.
 */
const pieces = (text: string, limit: number, level: number, size: Size): Array<string> => {
  if (size(text) <= limit) return [text]
  if (level >= LEVELS.length) return segmentWindowed("grapheme")(text)
  const parts = LEVELS[level]!(text)
  if (parts.length <= 1) return pieces(text, limit, level + 1, size)
  return parts.flatMap((p) => (size(p) <= limit ? [p] : pieces(p, limit, level + 1, size)))
}

/** Consecutive pieces joined while they fit (a piece over the limit — one huge grapheme — alone). */
const pack = (pieces: ReadonlyArray<string>, limit: number, sizeOf: Size): Array<string> => {
  const out: Array<string> = []
  let current = ""
  let size = 0
  for (const piece of pieces) {
    const n = sizeOf(piece)
    if (current !== "" && size + n > limit) {
      out.push(current)
      current = ""
      size = 0
    }
    current += piece
    size += n
  }
  if (current !== "") out.push(current)
  return out
}

const LEADING = /^\s*/u
const TRAILING = /\s*$/u

/**
 * `size`: how much a piece weighs against `limit` (default: its code points; the masking of
 * protected spans weighs a mask character as the token it becomes).
 */
export const chunkForTranslation = (
  text: string,
  limit: number = Limits.translateCodePoints,
  size: Size = codePoints
): TranslationChunks => {
  const lead = LEADING.exec(text)![0]
  if (lead.length === text.length) return { chunks: [], separators: [text] }
  const trail = TRAILING.exec(text)![0]
  const core = text.slice(lead.length, text.length - trail.length)
  const chunks: Array<string> = []
  const separators: Array<string> = [lead]
  for (const piece of pack(pieces(core, limit, 0, size), limit, size)) {
    // Whitespace at a cut goes to the separator; a whitespace-only piece is all separator.
    const before = LEADING.exec(piece)![0]
    if (before.length === piece.length) {
      separators[separators.length - 1] += piece
      continue
    }
    const after = TRAILING.exec(piece)![0]
    separators[separators.length - 1] += before
    chunks.push(piece.slice(before.length, piece.length - after.length))
    separators.push(after)
  }
  separators[separators.length - 1] += trail
  return { chunks, separators }
}

/** Interleaves separators and chunks (or their translations) back into one text. */
export const joinChunks = (parts: TranslationChunks, translated: ReadonlyArray<string> = parts.chunks): string => {
  let out = parts.separators[0]!
  for (let i = 0; i < translated.length; i++) out += translated[i]! + parts.separators[i + 1]!
  return out
}
