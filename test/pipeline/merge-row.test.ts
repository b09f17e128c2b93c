/** mergeRow is the spread `{ ...a, ...b }`: the same keys, order, values and own `__proto__`. */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { mergeRow } from "../../src/pipeline/merge-row.ts"

const same = (a: Record<string, unknown>, b: Record<string, unknown>) => {
  const spread = { ...a, ...b }
  const merged = mergeRow(a, b)
  expect(Object.keys(merged)).toEqual(Object.keys(spread))
  expect(JSON.stringify(merged)).toBe(JSON.stringify(spread))
  expect(Object.getPrototypeOf(merged)).toBe(Object.prototype)
  for (const k of Object.keys(spread)) expect(merged[k]).toBe(spread[k as keyof typeof spread])
}

describe("mergeRow", () => {
  it("is the spread of two rows, for any keys (integer-like, overlapping, __proto__) and values", () =>
    fc.assert(
      fc.property(
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "0", "7", "10", "id")), fc.jsonValue()),
        fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "3", "id", "verdict")), fc.jsonValue()),
        (a, b) => same(a, b)
      ),
      { numRuns: 300 }
    ))

  it("keeps a parsed row's own __proto__ key as data, not as the prototype", () => {
    const row = JSON.parse('{"__proto__": {"polluted": true}, "text": "x"}') as Record<string, unknown>
    const merged = mergeRow(row, { verdict: "safe" })
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"polluted":true},"text":"x","verdict":"safe"}')
    expect((merged as { polluted?: unknown }).polluted).toBeUndefined()
    same(row, { verdict: "safe" })
  })
})
