/**
 * Every numeric limit of the spec (§8 and the per-endpoint tables), in one place, plus the
 * measuring functions the limits are defined in terms of.
 */

export const Limits = {
  /** §8: chat completions, embeddings and rerank request bodies. */
  bodyBytes: 4 * 1024 * 1024,
  /** §8: translate request bodies. */
  translateBodyBytes: 1024 * 1024,
  maxCompletionTokens: 8000,
  defaultMaxCompletionTokens: 8000,
  nMin: 1,
  nMax: 5,
  maxStopStrings: 4,
  rerankMinDocuments: 1,
  rerankMaxDocuments: 20,
  rerankPairTokens: 8000,
  embeddingInputTokens: 8000,
  embeddingDimension: 1536,
  translateCodePoints: 5000
} as const

/** The models the spec names (§1). The complete list is "not shown", so other names pass the client. */
export const Models = {
  chat: "svc3-mini",
  guard: "svc3-guard",
  rerank: "svc3-rerank",
  embedding: "svc3-embedding"
} as const

/** §4.6 rule 3: characters are Unicode code points; a ZWJ emoji counts each component. */
export const codePointLength = (text: string): number => {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    // A high surrogate followed by a low surrogate is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    n++
  }
  return n
}

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/** The body limit (§8) of the endpoint at `path`. */
export const bodyLimitFor = (path: string): number =>
  path.endsWith("/translate") ? Limits.translateBodyBytes : Limits.bodyBytes
