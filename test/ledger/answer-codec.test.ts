/** Answers decoded by their request's Schema, the same for every ledger adapter. */
import { describe, expect, it } from "vitest"
import { Option, Schema } from "effect"
import { decodeAnswer } from "../../src/ledger/answer-codec.ts"

describe("answer codec", () => {
  it("decodes text answers by hand: JSON text holding a string, nothing else", () => {
    expect(decodeAnswer('"a \\"quoted\\" verdict"', Schema.String)).toEqual(Option.some('a "quoted" verdict'))
    expect(decodeAnswer("42", Schema.String)).toEqual(Option.none())
    expect(decodeAnswer("not json", Schema.String)).toEqual(Option.none())
    expect(decodeAnswer(new Uint8Array([1, 2]), Schema.String)).toEqual(Option.none())
  })
})
