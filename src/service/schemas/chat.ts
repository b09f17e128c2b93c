/**
 * Chat completions wire shapes (spec §2.1–2.6, §4.1). Request schemas are strict: the same schema
 * validates a request in the client before it is sent and in the emulator when it arrives.
 * Response schemas ignore unknown fields (§2, §9).
 */
import { Schema } from "effect"
import { Limits, Models } from "../limits.ts"
import { oneOf, shown } from "./one-of.ts"

export const Role = oneOf("system", "user", "assistant", "tool")
export type Role = typeof Role.Type

export const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})
export type ToolCall = typeof ToolCall.Type

export const Message = Schema.Struct({
  role: Role,
  content: Schema.optional(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optional(Schema.Array(ToolCall)),
  tool_call_id: Schema.optional(Schema.String)
}).pipe(
  Schema.filter((m) => {
    const hasCalls = m.tool_calls !== undefined && m.tool_calls.length > 0
    if (m.tool_calls !== undefined && m.role !== "assistant") {
      return { path: ["tool_calls"], message: "tool_calls is only allowed on role assistant" }
    }
    if (m.tool_call_id !== undefined && m.role !== "tool") {
      return { path: ["tool_call_id"], message: "tool_call_id is only allowed on role tool" }
    }
    if (typeof m.content !== "string" && !(m.role === "assistant" && hasCalls)) {
      return { path: ["content"], message: `content must be a string for role ${m.role}` }
    }
    return true
  })
)
export type Message = typeof Message.Type

/** A JSON Schema object: the keys the spec names are typed, every other keyword passes through. */
const JsonSchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const FunctionParameters = Schema.Struct(
  {
    type: Schema.String,
    properties: JsonSchemaObject,
    required: Schema.optional(Schema.Array(Schema.String))
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

export const Tool = Schema.Struct({
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.NonEmptyString,
    description: Schema.optional(Schema.String),
    parameters: FunctionParameters
  })
})
export type Tool = typeof Tool.Type

export const ResponseFormat = Schema.Struct({
  type: oneOf("text", "json_object", "json_schema"),
  json_schema: Schema.optional(
    Schema.Struct({
      name: Schema.String,
      schema: JsonSchemaObject,
      strict: Schema.optional(Schema.Boolean)
    })
  )
}).pipe(
  Schema.filter((f) =>
    f.type === "json_schema" && f.json_schema === undefined
      ? { path: ["json_schema"], message: "json_schema is required when type is json_schema" }
      : true
  )
)
export type ResponseFormat = typeof ResponseFormat.Type

export const ToolChoice = oneOf("none", "required", "auto")

const Penalty = Schema.Number.pipe(Schema.between(-2, 2))

/** The sampling and length parameters of §4.1, with the spec's ranges (stage options reuse them). */
export const ChatParameters = {
  frequency_penalty: Schema.optional(Penalty),
  max_completion_tokens: Schema.optional(Schema.Int.pipe(Schema.between(1, Limits.maxCompletionTokens))),
  n: Schema.optional(Schema.Int.pipe(Schema.between(Limits.nMin, Limits.nMax))),
  presence_penalty: Schema.optional(Penalty),
  repetition_penalty: Schema.optional(Schema.Number.pipe(Schema.greaterThan(0))),
  seed: Schema.optional(Schema.Int),
  stop: Schema.optional(
    Schema.NullOr(
      Schema.Union(Schema.String, Schema.Array(Schema.String).pipe(Schema.maxItems(Limits.maxStopStrings))).annotations(
        {
          message: (issue) => ({
            message:
              Array.isArray(issue.actual) && issue.actual.length > Limits.maxStopStrings
                ? `at most ${Limits.maxStopStrings} stop strings; got ${issue.actual.length}`
                : `Expected a string or a list of at most ${Limits.maxStopStrings} strings, actual ${shown(issue.actual)}`,
            override: true
          })
        }
      )
    )
  ),
  temperature: Schema.optional(Schema.Number.pipe(Schema.between(0, 2))),
  top_p: Schema.optional(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1))),
  top_k: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(-1)))
}

export const ChatRequest = Schema.Struct({
  model: Schema.NonEmptyString,
  messages: Schema.Array(Message).pipe(Schema.minItems(1)),
  ...ChatParameters,
  response_format: Schema.optional(ResponseFormat),
  stream: Schema.optional(Schema.Boolean),
  tool_choice: Schema.optional(ToolChoice),
  tools: Schema.optional(Schema.Array(Tool))
}).pipe(
  Schema.filter((r) => {
    if (r.model === Models.guard && r.tools !== undefined) {
      return { path: ["tools"], message: `tools are not supported with ${Models.guard}` }
    }
    if (r.model === Models.guard && r.tool_choice !== undefined) {
      return { path: ["tool_choice"], message: `tool_choice is not supported with ${Models.guard}` }
    }
    if (r.tool_choice === "required" && (r.tools === undefined || r.tools.length === 0)) {
      return { path: ["tool_choice"], message: "tool_choice required needs at least one tool" }
    }
    return true
  })
)
export type ChatRequest = typeof ChatRequest.Type

// ---- responses ----------------------------------------------------------------------------

export const Usage = Schema.Struct({
  prompt_tokens: Schema.Int,
  completion_tokens: Schema.Int,
  total_tokens: Schema.Int,
  prompt_tokens_details: Schema.optional(Schema.Unknown)
})
export type Usage = typeof Usage.Type

export const AssistantMessage = Schema.Struct({
  role: Schema.String,
  content: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  tool_calls: Schema.optionalWith(Schema.Array(ToolCall), { default: () => [] })
})
export type AssistantMessage = typeof AssistantMessage.Type

export const Choice = Schema.Struct({
  index: Schema.Int,
  message: AssistantMessage,
  finish_reason: Schema.String,
  logprobs: Schema.optional(Schema.Unknown)
})
export type Choice = typeof Choice.Type

export const ChatCompletion = Schema.Struct({
  id: Schema.String,
  object: Schema.String,
  created: Schema.Int,
  model: Schema.String,
  choices: Schema.Array(Choice),
  usage: Usage
})
export type ChatCompletion = typeof ChatCompletion.Type

export const ToolCallDelta = Schema.Struct({
  index: Schema.optional(Schema.Int),
  id: Schema.optional(Schema.String),
  type: Schema.optional(Schema.String),
  function: Schema.optional(
    Schema.Struct({ name: Schema.optional(Schema.String), arguments: Schema.optional(Schema.String) })
  )
})
export type ToolCallDelta = typeof ToolCallDelta.Type

export const ChunkChoice = Schema.Struct({
  index: Schema.Int,
  delta: Schema.Struct({
    role: Schema.optional(Schema.String),
    content: Schema.optional(Schema.NullOr(Schema.String)),
    tool_calls: Schema.optional(Schema.Array(ToolCallDelta))
  }),
  finish_reason: Schema.optional(Schema.NullOr(Schema.String)),
  logprobs: Schema.optional(Schema.Unknown)
})
export type ChunkChoice = typeof ChunkChoice.Type

export const ChatCompletionChunk = Schema.Struct({
  id: Schema.String,
  object: Schema.String,
  created: Schema.Int,
  model: Schema.String,
  choices: Schema.Array(ChunkChoice),
  usage: Schema.optional(Schema.NullOr(Usage))
})
export type ChatCompletionChunk = typeof ChatCompletionChunk.Type
