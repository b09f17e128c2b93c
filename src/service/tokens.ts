/**
 * Token counting. The service's tokenizer is not published; both sides of this project count with
 * o200k_base (gpt-tokenizer), so the client's pre-send checks and the emulator's 400s agree.
 * A byte-level BPE never yields more tokens than UTF-8 bytes, so short texts skip tokenizing.
 */
import { countTokens as o200kCount, isWithinTokenLimit } from "gpt-tokenizer/encoding/o200k_base"
import { utf8Bytes } from "./limits.ts"

export const countTokens = (text: string): number => (text.length === 0 ? 0 : o200kCount(text))

/** True when `text` is at most `limit` tokens; cheap for texts that are obviously short. */
export const withinTokens = (text: string, limit: number): boolean => {
  if (text.length <= limit && utf8Bytes(text) <= limit) return true
  return isWithinTokenLimit(text, limit) !== false
}
