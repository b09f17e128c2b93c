/**
 * Chunking for translate in linear time: a ratio of two timings, in the slow project because a
 * machine whose load changes between the two measures can still break it.
 */
import { describe, expect, it } from "@effect/vitest"
import { chunkForTranslation, joinChunks } from "../../src/stages/translation-chunking.ts"

describe("chunkForTranslation's time", () => {
  it("chunks a megabyte of text without any break in linear time", () => {
    const timed = (n: number) => {
      const source = "あ".repeat(n)
      const started = performance.now()
      const parts = chunkForTranslation(source)
      const ms = performance.now() - started
      expect(joinChunks(parts)).toBe(source)
      return { ms, chunks: parts.chunks.length }
    }
    const quarter = timed(250_000)
    const whole = timed(1_000_000)
    expect(whole.chunks).toBe(200)
    // Four times the text: about four times the time when linear, sixteen when quadratic. A ratio,
    // not a wall-clock bound, so a busy machine slows both sides alike (~0.4 s and ~1.3 s here).
    expect(whole.ms / quarter.ms).toBeLessThan(10)
  })
})
