/** The stage fold with no HTTP: `ask` answers by calling the request's own fake `send`. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { Ask } from "../../../src/engine/records/answer-cache.ts"
import { makeStageFold, RecordFailed } from "../../../src/engine/records/stage-fold.ts"
import { RequestFailed } from "../../../src/engine/flow/retry.ts"
import { makePipeline, type Prepared, type Stage, StageInputError } from "../../../src/pipeline/stage.ts"
import { TextService } from "../../../src/service/client.ts"
import { BadRequestError } from "../../../src/service/errors.ts"
import { condition, lengthStage, wordsStage } from "../fake-stages.ts"

// The fake stages never touch the service: any operation they reached would die naming itself.
const noService = TextService.makeTest({})
const askLocally: Ask = (request) =>
  request.send(noService).pipe(
    Effect.map((a) => a.value),
    Effect.mapError((e) => new RequestFailed({ detail: e.message, attempts: 1, cause: e }))
  )
const run = (stages: ReadonlyArray<Stage>, fields: Record<string, unknown>, ask: Ask = askLocally) =>
  Effect.runPromise(foldOf(stages, ask).fold(fields))
const foldOf = (stages: ReadonlyArray<Stage>, ask: Ask = askLocally) =>
  makeStageFold(
    Either.getOrThrow(makePipeline("p", "", stages)),
    { ask, keyOf: (r) => r.key },
    { referenceAnswers: true }
  )
/** A stage whose preparation is another's, changed by `change`. */
const changed = (stage: Stage, change: (p: Prepared) => Prepared): Stage => ({
  ...stage,
  prepare: (f) => {
    const p = stage.prepare(f)
    return p instanceof StageInputError ? p : change(p)
  }
})

describe("record processing", () => {
  it("gives a later stage the columns of the earlier ones", async () => {
    const double: Stage = { ...lengthStage("b", "a_len"), reads: ["a_len"] }
    const out = await run([lengthStage("a", "text"), double], { text: "hello world" })
    expect(out.output.rows).toEqual([{ a_len: 11, b_len: 2 }])
  })

  it("leaves a skipped stage's columns null, also when it is the last stage", async () => {
    const never = condition("false", [], () => false)
    const out = await run([lengthStage("a", "text"), lengthStage("b", "text", never)], { text: "abc" })
    expect(out.output.rows).toEqual([{ a_len: 3, b_len: null }])
  })

  it("carries the earlier stages' columns into every row of a final fan-out stage", async () => {
    const out = await run([lengthStage("a", "text"), wordsStage("w", "text")], { text: "one two three" })
    expect(out.output.rows).toEqual([
      { a_len: 13, w_word: "ONE", w_n: 0 },
      { a_len: 13, w_word: "TWO", w_n: 1 },
      { a_len: 13, w_word: "THREE", w_n: 2 }
    ])
    expect(out.output.keys).toHaveLength(4)
  })

  it("keeps a record whose fan-out stage made no rows, as one row with null columns", async () => {
    const out = await run([lengthStage("a", "text"), wordsStage("w", "text")], { text: "   " })
    expect(out.output.rows).toEqual([{ a_len: 3, w_word: null, w_n: null }])
  })

  it("fails the record with the stage, status and the request's label when a request fails for good", async () => {
    const failing: Ask = (request) =>
      Effect.fail(
        new RequestFailed({
          detail: `no: ${request.text}`,
          attempts: 1,
          cause: new BadRequestError({ endpoint: "chat", serviceMessage: "no" })
        })
      )
    const labelled = changed(lengthStage("a", "text"), (p) => ({
      ...p,
      requests: p.requests.map((r) => ({ ...r, label: "text chunk 2/3" }))
    }))
    const error = await Effect.runPromise(Effect.flip(foldOf([labelled], failing).fold({ text: "x" })))
    expect(error).toMatchObject({
      _tag: "RecordFailed",
      info: { stage: "a", status: "BadRequestError", message: "text chunk 2/3: no: x", attempts: 1 }
    })
  })

  it("fails the record when a one-row stage assembles several rows", async () => {
    const broken = changed(lengthStage("a", "text"), (p) => ({ ...p, assemble: () => [{}, {}] }))
    const error = await Effect.runPromise(Effect.flip(foldOf([broken]).fold({ text: "x" })))
    expect(error).toMatchObject({ _tag: "RecordFailed", info: { stage: "a", status: "stage-contract" } })
  })

  it("gives the same record whether a worker folds it whole or carries on from the reading fiber's first stage", async () => {
    const stages = [
      lengthStage("a", "text"),
      { ...lengthStage("b", "a_len"), reads: ["a_len"] },
      wordsStage("w", "text")
    ]
    const whole = await run(stages, { text: "one two" })
    // As the processing pass does on a warm rerun: the first stage prepared and answered in the reading fiber…
    const asked: Array<string> = []
    const counting: Ask = (request, key) =>
      Effect.zipRight(
        Effect.sync(() => asked.push(request.text)),
        askLocally(request, key)
      )
    const fold = foldOf(stages, counting)
    const state = fold.begin({ text: "one two" })
    const first = fold.prepareNext(state)
    if (first === undefined || first instanceof RecordFailed) throw new Error("expected the first stage prepared")
    expect(
      fold.absorb(
        state,
        first,
        first.requests.map((r) => r.key),
        [7]
      )
    ).toBeUndefined()
    expect(fold.finished(state)).toBe(false)
    // …then a worker carries on with the value it is handed: the first stage is not asked again.
    const carried = await Effect.runPromise(fold.carryOn(state))
    expect(carried).toEqual(whole)
    expect(asked).toEqual(["7", "one", "two"])
  })
})
