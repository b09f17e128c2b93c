/**
 * Splits text into chunks under a size limit, at sentence boundaries where possible and never
 * inside a grapheme cluster. Segmentation runs per paragraph: Intl.Segmenter's cost grows faster
 * than linearly with input length. Concatenating the chunks gives back the text exactly.
 */

const sentences = new Intl.Segmenter(undefined, { granularity: "sentence" })
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" })

/** Pieces of `text` (sentences, or graphemes of an over-long sentence), in order. */
function* pieces(text: string, fits: (s: string) => boolean): Generator<string> {
  for (const paragraph of text.split(/(?<=\n)/)) {
    for (const { segment } of sentences.segment(paragraph)) {
      if (fits(segment)) {
        yield segment
        continue
      }
      let part = ""
      for (const { segment: g } of graphemes.segment(segment)) {
        if (part !== "" && !fits(part + g)) {
          yield part
          part = ""
        }
        part += g
      }
      if (part !== "") yield part
    }
  }
}

/** Chunks whose `measure` is at most `limit`, greedily filled with whole sentences. */
export const chunkText = (text: string, limit: number, measure: (s: string) => number): Array<string> => {
  if (text === "") return []
  if (measure(text) <= limit) return [text]
  const fits = (s: string) => measure(s) <= limit
  const chunks: Array<string> = []
  let current = ""
  for (const piece of pieces(text, fits)) {
    if (current !== "" && !fits(current + piece)) {
      chunks.push(current)
      current = ""
    }
    current += piece
  }
  if (current !== "") chunks.push(current)
  return chunks
}
