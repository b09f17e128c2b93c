/** SSE decoding edge cases and chunk assembly (spec §2.6, §4.1). */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import type { ChatCompletionChunk } from "../../src/service/schemas/chat.ts"
import { assembleChunks, decodeChatStream } from "../../src/service/sse.ts"

const base = { id: "c1", object: "chat.completion.chunk", created: 1, model: "svc3-mini" }
const chunk = (choices: Array<unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ ...base, choices, ...extra })
const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }
const events = [
  chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
  chunk([{ index: 0, delta: { content: "Hel" }, finish_reason: null }]),
  chunk([{ index: 0, delta: { content: "lo ✓ 猫" }, finish_reason: null }]),
  chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
  chunk([], { usage })
]

const bytes = (parts: ReadonlyArray<string>) => Stream.fromIterable(parts.map((p) => new TextEncoder().encode(p)))
const run = (parts: ReadonlyArray<string>) =>
  decodeChatStream("chat", bytes(parts)).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray), Effect.either)

/** Splits `text` into pieces of `size` bytes — including inside multi-byte characters. */
const splitBytes = (text: string, size: number): Array<Uint8Array> => {
  const all = new TextEncoder().encode(text)
  const out: Array<Uint8Array> = []
  for (let i = 0; i < all.length; i += size) out.push(all.slice(i, i + size))
  return out
}

describe("decodeChatStream", () => {
  it.effect("decodes a complete stream and assembles the text", () =>
    Effect.gen(function* () {
      const result = yield* run([events.map((e) => `data: ${e}\n\n`).join("") + "data: [DONE]\n\n"])
      const chunks = Either.getOrThrow(result)
      expect(chunks).toHaveLength(5)
      const c = assembleChunks(chunks)
      expect(c.choices[0]!.message.content).toBe("Hello ✓ 猫")
      expect(c.choices[0]!.finish_reason).toBe("stop")
      expect(c.usage).toEqual(usage)
    })
  )

  it.effect("handles events split across writes at every byte, CRLF line ends and comment lines", () =>
    Effect.gen(function* () {
      const body =
        ": keep-alive comment\r\n\r\n" +
        events.map((e) => `data: ${e}\r\n\r\n`).join(": ping\r\n\r\n") +
        "data: [DONE]\r\n\r\n"
      for (const size of [1, 2, 3, 7, 64]) {
        const result = yield* decodeChatStream("chat", Stream.fromIterable(splitBytes(body, size))).pipe(
          Stream.runCollect,
          Effect.either
        )
        const chunks = Chunk.toReadonlyArray(Either.getOrThrow(result))
        expect(assembleChunks(chunks).choices[0]!.message.content, `split ${size}`).toBe("Hello ✓ 猫")
      }
    })
  )

  it.effect("fails IncompleteStreamError when the stream ends before [DONE]", () =>
    Effect.gen(function* () {
      const result = yield* run(events.slice(0, 3).map((e) => `data: ${e}\n\n`))
      expect(Either.isLeft(result) && result.left._tag).toBe("IncompleteStreamError")
      if (Either.isLeft(result) && result.left._tag === "IncompleteStreamError")
        expect(result.left.chunksReceived).toBe(3)
      const empty = yield* run([])
      expect(Either.isLeft(empty) && empty.left._tag).toBe("IncompleteStreamError")
    })
  )

  it.effect("fails IncompleteStreamError when the connection breaks mid-stream", () =>
    Effect.gen(function* () {
      const broken = Stream.concat(bytes([`data: ${events[0]}\n\n`]), Stream.fail(new Error("socket hang up")))
      const result = yield* decodeChatStream("chat", broken).pipe(Stream.runCollect, Effect.either)
      expect(Either.isLeft(result) && result.left._tag).toBe("IncompleteStreamError")
      if (Either.isLeft(result)) expect(result.left.message).toContain("socket hang up")
    })
  )

  it.effect("treats an error payload after HTTP 200 as an incomplete stream, garbage as a decode error", () =>
    Effect.gen(function* () {
      const errorEvent = yield* run([`data: ${events[0]}\n\n`, `data: {"message":"overloaded"}\n\n`])
      expect(Either.isLeft(errorEvent) && errorEvent.left._tag).toBe("IncompleteStreamError")
      const garbage = yield* run([`data: ${events[0]}\n\n`, `data: not json\n\n`])
      expect(Either.isLeft(garbage) && garbage.left._tag).toBe("ResponseDecodeError")
    })
  )
})

describe("assembleChunks", () => {
  it("concatenates interleaved candidates per index and tool-call fragments per call", () => {
    const parse = (s: string) => JSON.parse(s) as ChatCompletionChunk
    const chunks = [
      chunk([{ index: 1, delta: { role: "assistant", content: "" }, finish_reason: null }]),
      chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
      chunk([{ index: 0, delta: { content: "A1 " }, finish_reason: null }]),
      chunk([
        {
          index: 1,
          delta: {
            tool_calls: [
              { index: 0, id: "chatcmpl-tool-x", type: "function", function: { name: "f", arguments: '{"a":' } }
            ]
          },
          finish_reason: null
        }
      ]),
      chunk([{ index: 0, delta: { content: "A2" }, finish_reason: null }]),
      chunk([{ index: 1, delta: { tool_calls: [{ index: 0, function: { arguments: "1}" } }] }, finish_reason: null }]),
      chunk([{ index: 0, delta: {}, finish_reason: "length" }]),
      chunk([{ index: 1, delta: {}, finish_reason: "tool_calls" }])
    ].map(parse)
    const c = assembleChunks(chunks)
    expect(c.choices.map((x) => x.index)).toEqual([0, 1])
    expect(c.choices[0]!.message.content).toBe("A1 A2")
    expect(c.choices[0]!.finish_reason).toBe("length")
    expect(c.choices[1]!.message.content).toBeNull()
    expect(c.choices[1]!.message.tool_calls).toEqual([
      { id: "chatcmpl-tool-x", type: "function", function: { name: "f", arguments: '{"a":1}' } }
    ])
    expect(c.choices[1]!.finish_reason).toBe("tool_calls")
  })
})
