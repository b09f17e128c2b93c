/**
 * Token counting. The service's tokenizer is not published; both sides of this project count with
 * o200k_base (gpt-tokenizer), so the client's pre-send checks and the emulator's 400s agree.
 * A byte-level BPE never yields more tokens than UTF-8 bytes, so short texts skip tokenizing.
 */
import { createRequire } from "node:module"
import { utf8Bytes } from "./limits.ts"

type Encoding = typeof import("gpt-tokenizer/encoding/o200k_base")

// Loaded on first use (its tables take ~0.15 s and ~30 MB): commands that never count tokens, and
// texts short enough to skip counting, never pay for it. Its CommonJS build loads synchronously.
let encoding: Encoding | undefined
export const o200k = (): Encoding =>
  (encoding ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/o200k_base") as Encoding)

export const countTokens = (text: string): number => (text.length === 0 ? 0 : o200k().countTokens(text))

/** True when `text` is surely at most `limit` tokens without tokenizing it (UTF-8 bytes within the limit). */
export const surelyWithinTokens = (text: string, limit: number): boolean =>
  text.length <= limit && utf8Bytes(text) <= limit

/** True when `text` is at most `limit` tokens; cheap for texts that are obviously short. */
export const withinTokens = (text: string, limit: number): boolean => {
  if (surelyWithinTokens(text, limit)) return true
  return o200k().isWithinTokenLimit(text, limit) !== false
}
