/**
 * Pre-send validation with a shape cache (chat): a shape is decoded strictly once; later requests of
 * that shape are checked against the body limit only. What is refused or sent must not change.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Limits } from "../../src/service/limits.ts"
import { ChatRequest } from "../../src/service/schemas/chat.ts"
import { chatShape, prepareBody } from "../../src/service/validate.ts"

const chat = () => prepareBody("chat", "/v1/chat/completions", ChatRequest, chatShape)
const user = (content: string) => ({
  model: "svc3-guard",
  messages: [{ role: "user", content }],
  max_completion_tokens: 64
})
const outcome = (e: Effect.Effect<string, { readonly message: string }>) =>
  Either.match(Effect.runSync(Effect.either(e)), {
    onLeft: (error) => `refused: ${error.message}`,
    onRight: (body) => `sent: ${body}`
  })

describe("prepareBody with a shape cache", () => {
  it("a request of a shape already validated is sent with its own text", () => {
    const prepare = chat()
    expect(outcome(prepare(user("first text")))).toContain("first text")
    const body = JSON.parse(Effect.runSync(prepare(user("second text")))) as { messages: Array<{ content: string }> }
    expect(body.messages[0]!.content).toBe("second text")
  })

  it("a shape is decoded once: later requests of it skip the strict decode", () => {
    let decoded = 0
    const counting = ChatRequest.pipe(
      Schema.filter(() => {
        decoded++
        return true
      })
    )
    const prepare = prepareBody("chat", "/v1/chat/completions", counting, chatShape)
    for (let i = 0; i < 10; i++) Effect.runSync(prepare(user(`text ${i}`)))
    expect(decoded).toBe(1)
    Effect.runSync(prepare({ ...user("x"), max_completion_tokens: 32 }))
    expect(decoded).toBe(2)
  })

  it("a request of another shape is decoded strictly: an out-of-range value or an unlisted field is still refused", () => {
    const prepare = chat()
    expect(outcome(prepare(user("valid")))).toMatch(/^sent/)
    expect(outcome(prepare({ ...user("valid"), max_completion_tokens: 0 }))).toMatch(
      /^refused: .*max_completion_tokens/
    )
    expect(outcome(prepare({ ...user("valid"), logprobs: true }))).toMatch(/^refused: .*logprobs/)
    expect(
      outcome(prepare({ model: "svc3-guard", messages: [{ role: "user", content: null }], max_completion_tokens: 64 }))
    ).toMatch(/^refused: .*content/)
    expect(outcome(prepare({ ...user("valid"), tool_choice: "auto" }))).toMatch(/^refused: .*tool_choice/)
  })

  it("a shape refused once is refused again (only valid shapes are remembered)", () => {
    const prepare = chat()
    const bad = { ...user("x"), temperature: 3 }
    expect(outcome(prepare(bad))).toMatch(/^refused: .*temperature/)
    expect(outcome(prepare({ ...bad, messages: [{ role: "user", content: "another text" }] }))).toMatch(
      /^refused: .*temperature/
    )
  })

  it("the body limit is checked for every request, also of a remembered shape", () => {
    const prepare = chat()
    expect(outcome(prepare(user("short")))).toMatch(/^sent/)
    expect(outcome(prepare(user("x".repeat(Limits.bodyBytes))))).toMatch(
      /^refused: .*request body is \d+ bytes; at most/
    )
  })

  it("gives the same verdict as the strict decode alone over a mix of requests", () => {
    const strict = prepareBody("chat", "/v1/chat/completions", ChatRequest)
    const cached = chat()
    const requests: Array<unknown> = []
    for (let i = 0; i < 40; i++) {
      const base = user(`text ${i}`)
      requests.push(
        i % 7 === 0
          ? { ...base, n: 6 }
          : i % 5 === 0
            ? { ...base, messages: [{ role: "tool", content: `r${i}` }] }
            : i % 3 === 0
              ? { ...base, model: "" }
              : base
      )
    }
    for (const r of requests) expect(outcome(cached(r))).toBe(outcome(strict(r)))
  })
})
