/** The vector pages' Snappy encoder: any Float32 bytes come back exactly through a Snappy decoder. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { snappyUncompress } from "hyparquet/src/snappy.js"
import { zeroRunSnappy } from "../../../src/io/sinks/zero-run-snappy.ts"

const roundTrip = (floats: Float32Array) => {
  const bytes = new Uint8Array(floats.buffer)
  const compressed = zeroRunSnappy(bytes)
  const back = new Uint8Array(bytes.length)
  snappyUncompress(compressed, back)
  return { same: Buffer.from(back).equals(bytes), compressed, bytes }
}

describe("zeroRunSnappy", () => {
  it("decodes to the same bytes: zero runs of every length, at the start, middle and end", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.constant(0), fc.float({ noNaN: false })), { maxLength: 3000 }),
        (values) => {
          expect(roundTrip(Float32Array.from(values)).same).toBe(true)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("shrinks a sparse vector page (1 value in 43 non-zero, as the emulator's) ~9× and a dense one not at all", () => {
    const sparse = new Float32Array(170 * 1536)
    for (let i = 0; i < sparse.length; i += 43) sparse[i] = i / 7
    const dense = Float32Array.from({ length: 170 * 1536 }, (_, i) => Math.sin(i) * 0.03)
    const s = roundTrip(sparse)
    expect(s.same).toBe(true)
    expect(s.compressed.length).toBeLessThan(s.bytes.length / 9)
    const d = roundTrip(dense)
    expect(d.same).toBe(true)
    expect(d.compressed.length).toBeLessThanOrEqual(d.bytes.length + 16)
  })
})
