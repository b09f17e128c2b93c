/**
 * The tool-call round trip of spec §4.2: send tools; when the model asks for calls, append its
 * message unchanged, run each function here, append one `tool` message per call, and ask again
 * without tools for the final answer.
 */
import { Data, Effect } from "effect"
import type { ServiceError } from "./errors.ts"
import type { ChatCompletion, ChatRequest, Message } from "./schemas/chat.ts"

/** A tool call that named no handler, or whose arguments are not JSON. */
export class ToolCallError extends Data.TaggedError("ToolCallError")<{
  readonly tool: string
  readonly detail: string
}> {
  override get message() {
    return `tool call ${this.tool} failed: ${this.detail}`
  }
  get retryable() {
    return false
  }
}

/** A function the model may call: parsed arguments in, result text (the tool message content) out. */
export type ToolHandler<E, R> = (args: unknown) => Effect.Effect<string, E, R>

export interface RoundTrip {
  /** The final completion (the first one if the model called no tool). */
  readonly completion: ChatCompletion
  /** The whole conversation, ending with the final assistant message. */
  readonly messages: ReadonlyArray<Message>
  readonly toolCalls: number
}

export const toolRoundTrip = <E = never, R = never>(
  chat: (input: Omit<ChatRequest, "stream">) => Effect.Effect<ChatCompletion, ServiceError>,
  input: Omit<ChatRequest, "stream">,
  handlers: Readonly<Record<string, ToolHandler<E, R>>>,
  /** Rounds of tool calls before the final answer is asked for without tools (at least 1). */
  maxRounds = 1
): Effect.Effect<RoundTrip, ServiceError | ToolCallError | E, R> =>
  Effect.gen(function* () {
    const reply = (c: ChatCompletion): Message => ({
      role: "assistant",
      content: c.choices[0]?.message.content ?? null,
      tool_calls: c.choices[0]?.message.tool_calls ?? []
    })
    const { tools: _tools, tool_choice: _choice, ...withoutTools } = input
    const messages: Array<Message> = [...input.messages]
    let completion = yield* chat(input)
    let toolCalls = 0
    for (let round = 1; ; round++) {
      const choice = completion.choices[0]
      if (choice === undefined || choice.finish_reason !== "tool_calls" || choice.message.tool_calls.length === 0) break
      messages.push(reply(completion))
      for (const call of choice.message.tool_calls) {
        const handler = handlers[call.function.name]
        if (handler === undefined) {
          return yield* Effect.fail(new ToolCallError({ tool: call.function.name, detail: "no handler for this tool" }))
        }
        const args = yield* Effect.try({
          try: () => JSON.parse(call.function.arguments) as unknown,
          catch: () =>
            new ToolCallError({
              tool: call.function.name,
              detail: `arguments are not JSON: ${call.function.arguments}`
            })
        })
        const result = yield* handler(args)
        messages.push({ role: "tool", tool_call_id: call.id, content: result })
        toolCalls++
      }
      // More rounds: the model may call again (auto); the last: no tools, so it must answer.
      completion = yield* chat(
        round < Math.max(1, maxRounds) ? { ...input, tool_choice: "auto", messages } : { ...withoutTools, messages }
      )
    }
    return { completion, messages: [...messages, reply(completion)], toolCalls }
  })
