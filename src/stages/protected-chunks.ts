/**
 * A text's chunks for translate with its protected spans (protected-spans.ts) kept out of what is
 * sent, and put back byte-identical from the answers.
 * - A block span (a fenced code block) is cut out: it goes, as it is, between the chunks of the
 *   text before and after it, like the whitespace between chunks. It is never sent.
 * - Any other span is masked: in the chunk sent it is a token `{z0}`, `{z1}`, … (numbered from 0
 *   in each chunk, so the same sentence around different URLs is the same request, and its cached
 *   answer is reused), which translators carry over as they carry `{name}` placeholders. The
 *   answer's tokens are replaced by the spans; a span whose token the translator dropped is
 *   appended to its chunk's translation and reported as moved.
 * - Chunks are cut as translation-chunking.ts cuts them, a masked span being one character (so a
 *   cut never falls inside it) weighing as much as its token; a span longer than the request limit
 *   is one token like any other.
 * - A chunk left with no letters (say, a line that is only a URL) is not sent either.
 * The content key of a request is its text (content-key.ts): what `protect` changes in the text
 * sent changes the key, and a chunk with nothing protected is the request it always was.
 */
import { Limits } from "../service/limits.ts"
import { detectLanguage } from "./language.ts"
import type { Span } from "./protected-spans.ts"
import { chunkForTranslation, codePoints } from "./translation-chunking.ts"

/** Stands for a masked span while chunking: one code point, never white space, never split. */
const MASK = "\u{F0000}"
/** What a mask weighs: at most this many code points of token (`{` + prefix + 3 digits + `}`). */
const MASK_SIZE = 10
const PREFIXES = ["z", "zq", "zqz", "zqzq"]

export interface SentChunk {
  /** What is sent: the chunk with each masked span as its token. */
  readonly text: string
  /** The masked spans: token i stands for spans[i]. */
  readonly spans: ReadonlyArray<string>
  readonly prefix: string
}

export interface ProtectedChunks {
  readonly chunks: ReadonlyArray<SentChunk>
  /** Before, between and after the chunks (`chunks.length + 1`): white space, cut-out blocks and unsent chunks, as in the source. */
  readonly separators: ReadonlyArray<string>
}

const tokenPattern = (prefix: string) => new RegExp(`[{｛]\\s*${prefix}\\s*(\\d+)\\s*[}｝]`, "giu")

const weigh = (text: string): number => {
  const n = codePoints(text)
  if (!text.includes(MASK)) return n
  return n + (MASK_SIZE - 1) * (text.split(MASK).length - 1)
}

/** Spans, plus any mask character the source itself holds (masked too, so it cannot be mistaken for one of ours). */
const withSourceMasks = (text: string, spans: ReadonlyArray<Span>): ReadonlyArray<Span> => {
  if (!text.includes(MASK)) return spans
  const out: Array<Span> = []
  let i = 0
  for (let at = text.indexOf(MASK); at !== -1; at = text.indexOf(MASK, at + MASK.length)) {
    while (i < spans.length && spans[i]!.end <= at) out.push(spans[i++]!)
    if (i < spans.length && spans[i]!.start <= at) continue
    out.push({ start: at, end: at + MASK.length, block: false })
  }
  while (i < spans.length) out.push(spans[i++]!)
  return out
}

const unmask = (chunk: string, spans: ReadonlyArray<string>): string => {
  let i = 0
  return chunk.replaceAll(MASK, () => spans[i++]!)
}

const sentChunk = (chunk: string, spans: ReadonlyArray<string>): SentChunk => {
  const prefix = PREFIXES.find((p) => !tokenPattern(p).test(chunk)) ?? PREFIXES[PREFIXES.length - 1]!
  let i = 0
  return { text: chunk.replaceAll(MASK, () => `{${prefix}${i++}}`), spans, prefix }
}

export const chunkProtected = (
  text: string,
  found: ReadonlyArray<Span>,
  limit: number = Limits.translateCodePoints
): ProtectedChunks => {
  const spans = withSourceMasks(text, found)
  const chunks: Array<SentChunk> = []
  const separators: Array<string> = [""]
  const addToSeparator = (s: string) => (separators[separators.length - 1] += s)

  /** Chunks one stretch between blocks: `masked` holds a MASK for each of `contents`, in order. */
  const region = (masked: string, contents: ReadonlyArray<string>) => {
    const parts = chunkForTranslation(masked, limit, weigh)
    addToSeparator(parts.separators[0]!)
    let k = 0
    parts.chunks.forEach((chunk, i) => {
      const n = chunk.includes(MASK) ? chunk.split(MASK).length - 1 : 0
      const own = contents.slice(k, k + n)
      k += n
      if (detectLanguage(chunk.replaceAll(MASK, " ")) === undefined) addToSeparator(unmask(chunk, own))
      else {
        chunks.push(sentChunk(chunk, own))
        separators.push("")
      }
      addToSeparator(parts.separators[i + 1]!)
    })
  }

  let masked = ""
  let contents: Array<string> = []
  let pos = 0
  for (const span of spans) {
    masked += text.slice(pos, span.start)
    pos = span.end
    if (span.block) {
      region(masked, contents)
      addToSeparator(text.slice(span.start, span.end))
      masked = ""
      contents = []
    } else {
      masked += MASK
      contents.push(text.slice(span.start, span.end))
    }
  }
  region(masked + text.slice(pos), contents)
  return { chunks, separators }
}

/** The answer for a chunk with its spans back in place; `moved`: spans whose token it lacked (appended). */
export const restoreSpans = (
  chunk: SentChunk,
  answer: string
): { readonly text: string; readonly moved: ReadonlyArray<string> } => {
  if (chunk.spans.length === 0) return { text: answer, moved: [] }
  const placed = new Set<number>()
  const text = answer.replace(tokenPattern(chunk.prefix), (token, digits: string) => {
    const i = Number(digits)
    if (i >= chunk.spans.length) return token
    placed.add(i)
    return chunk.spans[i]!
  })
  const moved = chunk.spans.filter((_, i) => !placed.has(i))
  return { text: moved.length === 0 ? text : `${text} ${moved.join(" ")}`, moved }
}

/** The source text of each chunk (its spans in place): with the separators, the source exactly. */
export const chunkSources = (parts: ProtectedChunks): ReadonlyArray<string> =>
  parts.chunks.map((c) => restoreSpans(c, c.text).text)
