/** Building a pipeline refuses what would lose rows or read what nothing provides. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { makePipeline } from "../../src/pipeline/stage.ts"
import { condition, lengthStage, wordsStage } from "../engine/fake-stages.ts"

const refused = (result: ReturnType<typeof makePipeline>) => (Either.isLeft(result) ? result.left.message : "accepted")

describe("makePipeline", () => {
  it("refuses a fan-out stage followed by a one-row stage (its rows would be lost)", () => {
    expect(refused(makePipeline("p", "", [wordsStage("split", "text"), lengthStage("after", "text")]))).toMatch(
      /stage 1 \(split\) produces several rows per record; only the last stage may/
    )
  })

  it("accepts a fan-out stage at the end", () => {
    const p = makePipeline("p", "", [lengthStage("first", "text"), wordsStage("split", "text")])
    expect(Either.isRight(p)).toBe(true)
    expect(Either.getOrThrow(p).columns.map((c) => c.name)).toEqual(["first_len", "split_word", "split_n"])
  })

  it("refuses two stages adding the same column", () => {
    expect(refused(makePipeline("p", "", [lengthStage("a", "text"), lengthStage("a", "body")]))).toMatch(
      /adds column a_len, which stage 1 \(a\) already adds/
    )
  })

  it("refuses a condition on a column that only a later stage adds", () => {
    const early = lengthStage(
      "a",
      "text",
      condition("b_len > 3", ["b_len"], () => true)
    )
    expect(refused(makePipeline("p", "", [early, lengthStage("b", "text")]))).toMatch(
      /stage 1 \(a\) when tests b_len, which stage 2 \(b\) adds after it/
    )
  })

  it("refuses a stage reading its own column", () => {
    expect(refused(makePipeline("p", "", [lengthStage("a", "a_len")]))).toMatch(/reads a_len, which it adds itself/)
  })
})
