/** Chat completions rules (spec §2.1–2.7, §4.1–4.3) against the emulator over raw HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { validatorFor } from "../../src/emulator/models/json-instance.ts"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { chatBody, emulatorFor, post, sseData } from "../helpers.ts"

const CHAT = "/v1/chat/completions"
const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather of a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, maximum: 7 } },
      required: ["city"]
    }
  }
}
const stockTool = {
  type: "function",
  function: { name: "get_stock_price", parameters: { type: "object", properties: { ticker: { type: "string" } } } }
}

describe("chat completions", () => {
  let emu: RunningEmulator
  beforeAll(async () => {
    emu = await emulatorFor()
  })
  afterAll(() => emu.close())
  const chat = (body: unknown) => post(emu, CHAT, body)

  it("returns a Chat Completion object with consistent usage and null logprobs", async () => {
    const r = await chat(chatBody("Tell me about batch pipelines"))
    expect(r.status).toBe(200)
    const c = r.json
    expect(c.object).toBe("chat.completion")
    expect(typeof c.id).toBe("string")
    expect(Number.isInteger(c.created)).toBe(true)
    expect(c.model).toBe("svc3-mini")
    expect(c.choices).toHaveLength(1)
    expect(c.choices[0]).toMatchObject({ index: 0, finish_reason: "stop", logprobs: null })
    expect(c.choices[0].message).toMatchObject({ role: "assistant", tool_calls: [] })
    expect(c.choices[0].message.content.length).toBeGreaterThan(10)
    expect(c.usage.total_tokens).toBe(c.usage.prompt_tokens + c.usage.completion_tokens)
    expect(c.usage.prompt_tokens).toBeGreaterThan(0)
    expect(c.usage.prompt_tokens_details).toBeNull()
  })

  it("rejects unlisted or unsupported parameters with 'Invalid JSON or disallowed fields'", async () => {
    for (const extra of [
      { logprobs: true },
      { stream_options: { include_usage: true } },
      { max_tokens: 10 },
      { user: "x" }
    ]) {
      const r = await chat(chatBody("hi", extra))
      expect(r.status, JSON.stringify(extra)).toBe(400)
      expect(r.json.message).toBe("Invalid JSON or disallowed fields")
    }
    const nested = await chat({ model: "svc3-mini", messages: [{ role: "user", content: "hi", name: "bob" }] })
    expect(nested.json.message).toBe("Invalid JSON or disallowed fields")
  })

  it("enforces every parameter range with 400", async () => {
    const bad = [
      { frequency_penalty: 2.5 },
      { frequency_penalty: -2.1 },
      { presence_penalty: 3 },
      { max_completion_tokens: 8001 },
      { max_completion_tokens: 0 },
      { n: 0 },
      { n: 6 },
      { repetition_penalty: 0 },
      { temperature: 2.1 },
      { temperature: -0.1 },
      { top_p: 0 },
      { top_p: 1.01 },
      { top_k: -2 },
      { stop: ["a", "b", "c", "d", "e"] },
      { seed: 1.5 },
      { stream: "yes" },
      { tool_choice: { type: "function", function: { name: "get_weather" } }, tools: [weatherTool] },
      { tool_choice: "sometimes" },
      { response_format: { type: "xml" } },
      { response_format: { type: "json_schema" } }
    ]
    for (const extra of bad) {
      const r = await chat(chatBody("hi", extra))
      expect(r.status, JSON.stringify(extra)).toBe(400)
      expect(r.json.message, JSON.stringify(extra)).toMatch(/^Bad Request/)
    }
    const good = [
      { frequency_penalty: 2, presence_penalty: -2, max_completion_tokens: 8000, n: 5, repetition_penalty: 0.01 },
      { temperature: 0, top_p: 1, top_k: -1 },
      { top_k: 0, stop: null },
      { top_k: 40, stop: ["a", "b", "c", "d"], seed: -7 }
    ]
    for (const extra of good) expect((await chat(chatBody("hi", extra))).status, JSON.stringify(extra)).toBe(200)
  })

  it("rejects missing model or messages, bad roles and content rules", async () => {
    expect((await chat({ messages: [{ role: "user", content: "x" }] })).status).toBe(400)
    expect((await chat({ model: "svc3-mini" })).status).toBe(400)
    expect((await chat({ model: "svc3-mini", messages: [] })).status).toBe(400)
    expect((await chat({ model: "svc3-mini", messages: [{ role: "robot", content: "x" }] })).status).toBe(400)
    expect((await chat({ model: "svc3-mini", messages: [{ role: "user", content: null }] })).status).toBe(400)
    expect((await chat({ model: "svc3-other", messages: [{ role: "user", content: "x" }] })).status).toBe(400)
  })

  it("honours n with one choice per candidate", async () => {
    const r = await chat(chatBody("five please", { n: 5 }))
    expect(r.json.choices.map((c: { index: number }) => c.index)).toEqual([0, 1, 2, 3, 4])
  })

  it("is deterministic for equal seed and parameters, and varies with the seed", async () => {
    const a = await chat(chatBody("seeded question", { seed: 7 }))
    const b = await chat(chatBody("seeded question", { seed: 7 }))
    const c = await chat(chatBody("seeded question", { seed: 8 }))
    expect(a.json.choices[0].message.content).toBe(b.json.choices[0].message.content)
    expect(a.json.choices[0].message.content).not.toBe(c.json.choices[0].message.content)
    expect(a.json.id).not.toBe(b.json.id)
  })

  it("cuts at the first stop string, excludes it and finishes with stop", async () => {
    const full = (await chat(chatBody("stop test", { seed: 1 }))).json.choices[0].message.content as string
    const word = "svc3-mini"
    expect(full).toContain(word)
    const r = await chat(chatBody("stop test", { seed: 1, stop: [word, "zzz-never"] }))
    const content = r.json.choices[0].message.content as string
    expect(content).toBe(full.slice(0, full.indexOf(word)))
    expect(content).not.toContain(word)
    expect(r.json.choices[0].finish_reason).toBe("stop")
    const single = await chat(chatBody("stop test", { seed: 1, stop: word }))
    expect(single.json.choices[0].message.content).toBe(content)
  })

  it("draws the same text whatever the stop strings: a stop string that never occurs changes nothing", async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const full = (await chat(chatBody("plain stop check", { seed }))).json.choices[0]
      const never = (await chat(chatBody("plain stop check", { seed, stop: ["zzz-never", "§§"] }))).json.choices[0]
      expect(never.message.content, `seed ${seed}`).toBe(full.message.content)
      expect(never.finish_reason).toBe("stop")
    }
  })

  it("only cuts with a stop string drawn late in the text: the answer is a prefix of the answer without it", async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const full = (await chat(chatBody("prefix stop check", { seed }))).json.choices[0].message.content as string
      // The last filler word: it lies after the echoed prompt, where the drawn words are.
      const word = ` ${full.replace(/\.$/, "").split(" ").at(-1)!}`
      const cut = (await chat(chatBody("prefix stop check", { seed, stop: word }))).json.choices[0]
      expect(full.startsWith(cut.message.content), `seed ${seed}`).toBe(true)
      expect(cut.message.content).toBe(full.slice(0, full.indexOf(word)))
      expect(cut.finish_reason).toBe("stop")
    }
  })

  it("draws the same text whatever max_completion_tokens and n: they only cut or add candidates", async () => {
    for (const seed of [1, 2, 3]) {
      const full = (await chat(chatBody("length check", { seed }))).json.choices[0].message.content as string
      expect(
        (await chat(chatBody("length check", { seed, max_completion_tokens: 7999 }))).json.choices[0].message.content
      ).toBe(full)
      const short = (await chat(chatBody("length check", { seed, max_completion_tokens: 12 }))).json.choices[0]
      expect(short.finish_reason).toBe("length")
      expect(full.startsWith(short.message.content), `seed ${seed}`).toBe(true)
      expect((await chat(chatBody("length check", { seed, n: 3 }))).json.choices[0].message.content).toBe(full)
    }
  })

  it("still varies the text with sampling parameters", async () => {
    const a = (await chat(chatBody("sampling check", { seed: 1 }))).json.choices[0].message.content
    const b = (await chat(chatBody("sampling check", { seed: 1, temperature: 0.3 }))).json.choices[0].message.content
    expect(a).not.toBe(b)
  })

  it("truncates at max_completion_tokens with finish_reason length", async () => {
    const r = await chat(chatBody("a long answer please", { max_completion_tokens: 5 }))
    expect(r.json.choices[0].finish_reason).toBe("length")
    expect(r.json.usage.completion_tokens).toBe(5)
    const full = (await chat(chatBody("a long answer please"))).json.choices[0].message.content as string
    expect(full.startsWith(r.json.choices[0].message.content)).toBe(true)
  })

  it("rejects a prompt that does not fit the context with max_completion_tokens", async () => {
    const long = "word ".repeat(26_000)
    const r = await chat(chatBody(long))
    expect(r.status).toBe(400)
    expect(r.json.message).toMatch(/context length/)
    expect((await chat(chatBody(long, { max_completion_tokens: 100 }))).status).toBe(200)
  })

  describe("tools", () => {
    it("calls a tool by default when tools are given (tool_choice required)", async () => {
      const r = await chat(chatBody("hello", { tools: [weatherTool] }))
      const choice = r.json.choices[0]
      expect(choice.finish_reason).toBe("tool_calls")
      expect(choice.message.tool_calls).toHaveLength(1)
      const call = choice.message.tool_calls[0]
      expect(call.id).toMatch(/^chatcmpl-tool-[0-9a-f]+$/)
      expect(call.type).toBe("function")
      expect(call.function.name).toBe("get_weather")
      const args = JSON.parse(call.function.arguments)
      expect(typeof args.city).toBe("string")
      expect(args.days).toBeGreaterThanOrEqual(1)
      expect(args.days).toBeLessThanOrEqual(7)
    })

    it("picks the tool the message names", async () => {
      const r = await chat(
        chatBody("what is the stock price of ACME", { tools: [weatherTool, stockTool], tool_choice: "required" })
      )
      expect(r.json.choices[0].message.tool_calls[0].function.name).toBe("get_stock_price")
    })

    it("none answers with a message only; auto calls only when the message needs a tool", async () => {
      const none = await chat(chatBody("weather in Paris", { tools: [weatherTool], tool_choice: "none" }))
      expect(none.json.choices[0].finish_reason).toBe("stop")
      expect(none.json.choices[0].message.tool_calls).toEqual([])
      const autoNo = await chat(chatBody("tell me a joke", { tools: [weatherTool], tool_choice: "auto" }))
      expect(autoNo.json.choices[0].finish_reason).toBe("stop")
      const autoYes = await chat(chatBody("what's the weather in Paris", { tools: [weatherTool], tool_choice: "auto" }))
      expect(autoYes.json.choices[0].finish_reason).toBe("tool_calls")
    })

    it("rejects tools and tool_choice with svc3-guard, and tool_choice required without tools", async () => {
      const guard = { model: "svc3-guard", messages: [{ role: "user", content: "x" }] }
      expect((await chat({ ...guard, tools: [weatherTool] })).status).toBe(400)
      expect((await chat({ ...guard, tool_choice: "none" })).status).toBe(400)
      expect((await chat(chatBody("x", { tool_choice: "required" }))).status).toBe(400)
    })

    it("completes the round trip of §4.2", async () => {
      const first = await chat(chatBody("weather in Kyoto?", { tools: [weatherTool] }))
      const assistant = first.json.choices[0].message
      const call = assistant.tool_calls[0]
      const messages = [
        { role: "user", content: "weather in Kyoto?" },
        assistant, // appended unchanged (content null, tool_calls)
        { role: "tool", tool_call_id: call.id, content: '{"temp_c": 21, "sky": "clear"}' }
      ]
      const final = await chat({ model: "svc3-mini", messages })
      expect(final.status).toBe(200)
      expect(final.json.choices[0].finish_reason).toBe("stop")
      expect(final.json.choices[0].message.content).toContain("temp_c")
      // tool_call_id may be omitted (§2.1)
      const omitted = await chat({
        model: "svc3-mini",
        messages: [messages[0], assistant, { role: "tool", content: "21C" }]
      })
      expect(omitted.status).toBe(200)
      // With tools again, the model may call again.
      const again = await chat({ model: "svc3-mini", messages, tools: [weatherTool] })
      expect(again.json.choices[0].finish_reason).toBe("tool_calls")
    })
  })

  describe("response_format", () => {
    it("text is plain prose; json_object is a JSON object", async () => {
      const text = await chat(chatBody("hi", { response_format: { type: "text" } }))
      expect(() => JSON.parse(text.json.choices[0].message.content)).toThrow()
      const obj = await chat(chatBody("hi", { response_format: { type: "json_object" } }))
      const parsed = JSON.parse(obj.json.choices[0].message.content)
      expect(typeof parsed).toBe("object")
    })

    it("json_schema output conforms to the schema", async () => {
      const schema = {
        type: "object",
        properties: {
          title: { type: "string", minLength: 3, maxLength: 20 },
          score: { type: "number", minimum: 0, maximum: 1 },
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 2, maxItems: 2 },
          kind: { const: "review" },
          ok: { type: "boolean" }
        },
        required: ["title", "score", "tags", "kind", "ok"]
      }
      for (const seed of [1, 2, 3]) {
        const r = await chat(
          chatBody("rate it", {
            seed,
            response_format: { type: "json_schema", json_schema: { name: "review", schema, strict: true } }
          })
        )
        const v = JSON.parse(r.json.choices[0].message.content)
        expect(v.kind).toBe("review")
        expect(v.title.length).toBeGreaterThanOrEqual(3)
        expect(v.title.length).toBeLessThanOrEqual(20)
        expect(v.score).toBeGreaterThanOrEqual(0)
        expect(v.score).toBeLessThanOrEqual(1)
        expect(v.tags).toHaveLength(2)
        expect(typeof v.ok).toBe("boolean")
      }
    })
  })

  describe("svc3-guard", () => {
    const guard = (content: string) => chat({ model: "svc3-guard", messages: [{ role: "user", content }] })

    it("answers 安全 for safe input, with finish_reason stop", async () => {
      const r = await guard("今日は良い天気ですね。Let's go for a walk.")
      expect(r.json.choices[0].message.content).toBe("安全")
      expect(r.json.choices[0].finish_reason).toBe("stop")
    })

    it("answers 有害, a line break and codes separated by ', ' for harmful input", async () => {
      expect((await guard("how to build a bomb")).json.choices[0].message.content).toBe("有害\nT9")
      expect((await guard("爆弾の作り方とデマを拡散する方法")).json.choices[0].message.content).toBe("有害\nT9, T10")
    })
  })

  describe("streaming", () => {
    it("streams per §2.6/§4.1: role chunk, fragments, finish chunk, usage chunk, [DONE]", async () => {
      const body = chatBody("stream this please", { seed: 3 })
      const plain = (await chat(body)).json
      const r = await chat({ ...body, stream: true })
      expect(r.status).toBe(200)
      expect(r.headers.get("content-type")).toMatch(/text\/event-stream/)
      const data = sseData(r.text)
      expect(data[data.length - 1]).toBe("[DONE]")
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d))
      for (const c of chunks) expect(c.object).toBe("chat.completion.chunk")
      expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" })
      const usageChunk = chunks[chunks.length - 1]
      expect(usageChunk.choices).toEqual([])
      expect(usageChunk.usage).toEqual(plain.usage)
      const finish = chunks[chunks.length - 2].choices[0]
      expect(finish.finish_reason).toBe("stop")
      const middle = chunks.slice(1, -2)
      expect(middle.length).toBeGreaterThan(2)
      for (const c of middle) {
        expect(c.choices[0].finish_reason).toBeNull()
        expect(c.choices[0].logprobs).toBeNull()
      }
      expect(middle.map((c) => c.choices[0].delta.content).join("")).toBe(plain.choices[0].message.content)
    })

    it("interleaves candidates for n > 1, told apart by index", async () => {
      const r = await chat(chatBody("two candidates", { n: 2, stream: true }))
      const chunks = sseData(r.text)
        .slice(0, -1)
        .map((d) => JSON.parse(d))
      const order = chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0].index)
      expect(order.slice(0, 4)).toEqual([0, 1, 0, 1])
      const plain = (await chat(chatBody("two candidates", { n: 2 }))).json
      for (const i of [0, 1]) {
        const text = chunks
          .filter((c) => c.choices[0]?.index === i)
          .map((c) => c.choices[0].delta.content ?? "")
          .join("")
        expect(text).toBe(plain.choices[i].message.content)
      }
    })

    it("streams tool calls: id, type, name and the start of arguments, then argument fragments", async () => {
      const r = await chat(chatBody("weather in Osaka", { tools: [weatherTool], stream: true }))
      const chunks = sseData(r.text)
        .slice(0, -1)
        .map((d) => JSON.parse(d))
      const deltas = chunks.filter((c) => c.choices[0]?.delta?.tool_calls).map((c) => c.choices[0].delta.tool_calls[0])
      expect(deltas[0]).toMatchObject({ index: 0, type: "function", function: { name: "get_weather" } })
      expect(deltas[0].id).toMatch(/^chatcmpl-tool-/)
      expect(deltas.length).toBeGreaterThan(1)
      for (const d of deltas.slice(1)) expect(d.id).toBeUndefined()
      const args = deltas.map((d) => d.function.arguments).join("")
      expect(typeof JSON.parse(args).city).toBe("string")
      expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe("tool_calls")
    })
  })
})

describe("chat json_schema with the nonconforming-rate knob", () => {
  const schema = {
    type: "object",
    properties: {
      label: { enum: ["spam", "ham"] },
      score: { type: "number", minimum: 0, maximum: 1 },
      code: { type: "string", pattern: "^[A-Z]{2}\\d{3}$" }
    },
    required: ["label", "score", "code"],
    additionalProperties: false
  }
  const ask = (emu: RunningEmulator, seed: number) =>
    post(
      emu,
      CHAT,
      chatBody("classify this", { seed, response_format: { type: "json_schema", json_schema: { name: "c", schema } } })
    )
  const conforming = async (emu: RunningEmulator, seeds: number) => {
    const validate = validatorFor(schema)!
    let ok = 0
    for (let seed = 1; seed <= seeds; seed++)
      if (validate(JSON.parse((await ask(emu, seed)).json.choices[0].message.content))) ok++
    return ok
  }

  it("conforms always by default (rate 0)", async () => {
    const emu = await emulatorFor()
    try {
      expect(await conforming(emu, 60)).toBe(60)
    } finally {
      await emu.close()
    }
  })

  it("makes about the configured share of answers not conform, the same ones for the same requests", async () => {
    const emu = await emulatorFor({ nonconformingRate: 0.3 })
    try {
      const ok = await conforming(emu, 200)
      expect(1 - ok / 200).toBeGreaterThan(0.2)
      expect(1 - ok / 200).toBeLessThan(0.4)
      for (const seed of [1, 2, 3, 4, 5, 6])
        expect((await ask(emu, seed)).json.choices[0].message.content).toBe(
          (await ask(emu, seed)).json.choices[0].message.content
        )
    } finally {
      await emu.close()
    }
  })

  it("at rate 1 never conforms, and keeps valid JSON", async () => {
    const emu = await emulatorFor({ nonconformingRate: 1 })
    try {
      expect(await conforming(emu, 30)).toBe(0)
    } finally {
      await emu.close()
    }
  })
})
