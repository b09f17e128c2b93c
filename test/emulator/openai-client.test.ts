/** A client nobody here wrote: the official `openai` package must work against the emulator. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import OpenAI from "openai"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY } from "../helpers.ts"

describe("openai npm client against the emulator", () => {
  let emu: RunningEmulator
  let client: OpenAI
  beforeAll(async () => {
    emu = await emulatorFor()
    client = new OpenAI({ baseURL: `${emu.url}/v1`, apiKey: KEY, maxRetries: 0 })
  })
  afterAll(() => emu.close())

  it("plain chat", async () => {
    const c = await client.chat.completions.create({
      model: "svc3-mini",
      messages: [{ role: "user", content: "Say hello" }],
      seed: 1,
      max_completion_tokens: 50
    })
    expect(c.choices[0]!.message.content).toContain("Emulated reply")
    expect(c.choices[0]!.finish_reason).toBe("stop")
    expect(c.usage!.total_tokens).toBeGreaterThan(0)
  })

  it("streaming chat, including the stream helper's final assembly", async () => {
    const stream = await client.chat.completions.create({
      model: "svc3-mini",
      messages: [{ role: "user", content: "Stream a greeting" }],
      stream: true,
      seed: 2
    })
    let text = ""
    let finish: string | null = null
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? ""
        finish = choice.finish_reason ?? finish
      }
    }
    const plain = await client.chat.completions.create({
      model: "svc3-mini",
      messages: [{ role: "user", content: "Stream a greeting" }],
      seed: 2
    })
    expect(text).toBe(plain.choices[0]!.message.content)
    expect(finish).toBe("stop")

    const runner = client.chat.completions.stream({
      model: "svc3-mini",
      messages: [{ role: "user", content: "Stream a greeting" }],
      seed: 2
    })
    const final = await runner.finalChatCompletion()
    expect(final.choices[0]!.message.content).toBe(plain.choices[0]!.message.content)
  })

  it("tool calling round trip, streamed and not", async () => {
    const tools: Array<OpenAI.Chat.Completions.ChatCompletionTool> = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
        }
      }
    ]
    const messages: Array<OpenAI.Chat.Completions.ChatCompletionMessageParam> = [
      { role: "user", content: "weather in Nagoya" }
    ]
    const first = await client.chat.completions.create({ model: "svc3-mini", messages, tools })
    const call = first.choices[0]!.message.tool_calls![0]!
    expect(first.choices[0]!.finish_reason).toBe("tool_calls")
    expect(call.id).toMatch(/^chatcmpl-tool-/)
    if (call.type !== "function") throw new Error("expected a function call")
    expect(JSON.parse(call.function.arguments).city).toBeTypeOf("string")

    messages.push(first.choices[0]!.message)
    messages.push({ role: "tool", tool_call_id: call.id, content: "sunny, 25C" })
    const final = await client.chat.completions.create({ model: "svc3-mini", messages })
    expect(final.choices[0]!.message.content).toContain("sunny, 25C")

    const streamed = await client.chat.completions
      .stream({ model: "svc3-mini", messages: [{ role: "user", content: "weather in Nagoya" }], tools })
      .finalChatCompletion()
    const streamedCall = streamed.choices[0]!.message.tool_calls![0]!
    if (streamedCall.type !== "function") throw new Error("expected a function call")
    expect(streamedCall.function).toEqual(call.function)
  })
})
