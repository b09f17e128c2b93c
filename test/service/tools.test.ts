/** The §4.2 round-trip helper against the emulator. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { TextService } from "../../src/service/client.ts"
import { clientLayer, requestLog } from "../helpers.ts"

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}

describe("chatWithTools", () => {
  it.scopedLive("runs the called function, appends its result and returns the final answer", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const svc = yield* TextService
      const seen: Array<unknown> = []
      const trip = yield* svc.chatWithTools(
        { model: "svc3-mini", messages: [{ role: "user", content: "weather in Sapporo" }], tools: [weatherTool] },
        { get_weather: (args) => Effect.sync(() => (seen.push(args), "snow, -3C")) }
      )
      expect(seen).toHaveLength(1)
      expect(typeof (seen[0] as { city: string }).city).toBe("string")
      expect(trip.toolCalls).toBe(1)
      expect(trip.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"])
      const toolMessage = trip.messages[2]!
      expect(toolMessage.tool_call_id).toBe(trip.messages[1]!.tool_calls![0]!.id)
      expect(trip.completion.choices[0]!.finish_reason).toBe("stop")
      expect(trip.completion.choices[0]!.message.content).toContain("snow, -3C")
      expect(log.entries).toHaveLength(2)
    }).pipe(Effect.provide(clientLayer({ onRequest: log.onRequest })))
  })

  it.scopedLive("fails ToolCallError for a tool without a handler", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(
        svc.chatWithTools(
          { model: "svc3-mini", messages: [{ role: "user", content: "weather?" }], tools: [weatherTool] },
          {}
        )
      )
      expect(error._tag).toBe("ToolCallError")
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("returns the first answer when the model calls no tool", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const trip = yield* svc.chatWithTools(
        {
          model: "svc3-mini",
          messages: [{ role: "user", content: "tell me a joke" }],
          tools: [weatherTool],
          tool_choice: "auto"
        },
        { get_weather: () => Effect.succeed("never") }
      )
      expect(trip.toolCalls).toBe(0)
      expect(trip.messages).toHaveLength(2)
    }).pipe(Effect.provide(clientLayer()))
  )
})
