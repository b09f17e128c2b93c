/**
 * The emulated chat models (svc3-mini and svc3-guard). Output is a pure function of the request
 * (messages, sampling parameters, seed, candidate index): the same request answers the same,
 * streamed or not. Stop strings cut (and are excluded) and max_completion_tokens truncates with
 * finish `length` without changing what was drawn,
 * tools are called per tool_choice, and structured output conforms to the requested schema.
 */
import { Limits, Models } from "../../service/limits.ts"
import type { ChatRequest, Message, Tool, ToolCall, Usage } from "../../service/schemas/chat.ts"
import { countTokens, o200k } from "../../service/tokens.ts"
import { fnv1a, hexId, prng } from "../hash.ts"
import { guardVerdict } from "./guard.ts"
import { conformingInstance, nonconformingInstance } from "./json-instance.ts"

/** Context lengths the emulator enforces (the spec does not publish them). */
export const ContextTokens: Readonly<Record<string, number>> = {
  [Models.chat]: 32_768,
  [Models.guard]: 32_768
}
export const KnownChatModels: ReadonlySet<string> = new Set(Object.keys(ContextTokens))

export interface CandidateAnswer {
  readonly content: string | null
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly finishReason: "stop" | "length" | "tool_calls"
}

export interface ChatAnswer {
  readonly candidates: ReadonlyArray<CandidateAnswer>
  readonly usage: Usage
}

const FILLER = [
  "the",
  "batch",
  "pipeline",
  "reads",
  "each",
  "record",
  "once",
  "and",
  "writes",
  "a",
  "clear",
  "answer",
  "while",
  "rate",
  "limits",
  "stay",
  "respected",
  "so",
  "nothing",
  "is",
  "lost",
  "or",
  "paid",
  "twice",
  "results",
  "are",
  "checkpointed",
  "in",
  "order",
  "for",
  "every",
  "corpus",
  "line"
]

const textOf = (m: Message): string => m.content ?? ""

/** Prompt tokens: message contents plus a small per-message overhead, plus tool definitions. */
export const promptTokens = (request: ChatRequest): number =>
  request.messages.reduce(
    (n, m) => n + 4 + countTokens(textOf(m)) + (m.tool_calls ? countTokens(JSON.stringify(m.tool_calls)) : 0),
    3
  ) + (request.tools ? countTokens(JSON.stringify(request.tools)) : 0)

const words = (text: string): Array<string> => text.split(/\s+/).filter((w) => w !== "")

const nameTokens = (name: string): Array<string> =>
  name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length >= 3)

/** `auto`: call a tool when the last message is the user's and names one (a word of the tool name). */
const pickTool = (tools: ReadonlyArray<Tool>, lastUser: string): Tool | undefined => {
  const text = lastUser.toLowerCase()
  let best: Tool | undefined
  let bestScore = 0
  for (const tool of tools) {
    const score = nameTokens(tool.function.name).filter((t) => text.includes(t)).length
    if (score > bestScore) {
      best = tool
      bestScore = score
    }
  }
  return best
}

const applyStop = (text: string, stop: ChatRequest["stop"]): { text: string; stopped: boolean } => {
  const stops = stop === undefined || stop === null ? [] : typeof stop === "string" ? [stop] : stop
  let cut = -1
  for (const s of stops) {
    if (s === "") continue
    const at = text.indexOf(s)
    if (at >= 0 && (cut < 0 || at < cut)) cut = at
  }
  return cut < 0 ? { text, stopped: false } : { text: text.slice(0, cut), stopped: true }
}

const truncate = (text: string, maxTokens: number): { text: string; truncated: boolean; tokens: number } => {
  // Most answers are far below the cap; only tokenize in full when they could exceed it.
  if (text.length <= maxTokens && Buffer.byteLength(text) <= maxTokens)
    return { text, truncated: false, tokens: countTokens(text) }
  // The tokenizer loads on first use (its tables are ~30 MB): a job's process need not pay for them.
  const { encode, decode } = o200k()
  const tokens = encode(text)
  if (tokens.length <= maxTokens) return { text, truncated: false, tokens: tokens.length }
  return { text: decode(tokens.slice(0, maxTokens)), truncated: true, tokens: maxTokens }
}

const proseFor = (request: ChatRequest, rand: () => number): string => {
  const last = request.messages[request.messages.length - 1]!
  const lead =
    last.role === "tool"
      ? `Emulated answer from ${request.model} using the tool result: ${textOf(last).slice(0, 200)}.`
      : `Emulated reply from ${request.model} to: ${words(
          textOf([...request.messages].reverse().find((m) => m.role === "user") ?? last)
        )
          .slice(0, 16)
          .join(" ")
          .replace(/[.!?。！？]+$/u, "")}.`
  const length = 12 + Math.floor(rand() * 24)
  const filler: Array<string> = []
  for (let i = 0; i < length; i++) filler.push(FILLER[Math.floor(rand() * FILLER.length)]!)
  return `${lead} ${filler.join(" ")}.`
}

/** Values the conversation's tool results returned (JSON objects), later ones winning. */
const toolFacts = (messages: ChatRequest["messages"]): Record<string, unknown> => {
  const facts: Record<string, unknown> = {}
  for (const m of messages) {
    if (m.role !== "tool") continue
    try {
      const parsed: unknown = JSON.parse(textOf(m))
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) Object.assign(facts, parsed)
    } catch {
      // a tool result in prose: nothing to reuse
    }
  }
  return facts
}

/** What the chat models take from the emulator's knobs. */
export interface ChatModelOptions {
  /** The share of json_schema answers made not to conform (knob `nonconformingRate`). */
  readonly nonconformingRate?: number
}

const candidate = (
  request: ChatRequest,
  key: string,
  index: number,
  options: ChatModelOptions
): CandidateAnswer & { tokens: number } => {
  const seedText = `${key}|${request.seed ?? 0}|${index}`
  const rand = prng(fnv1a(seedText))
  const maxTokens = request.max_completion_tokens ?? Limits.defaultMaxCompletionTokens

  if (request.model === Models.guard) {
    const judged = request.messages
      .filter((m) => m.role === "user")
      .map(textOf)
      .join("\n")
    const verdict = guardVerdict(judged)
    return { content: verdict, toolCalls: [], finishReason: "stop", tokens: countTokens(verdict) }
  }

  const tools = request.tools ?? []
  const choice = request.tool_choice ?? (tools.length > 0 ? "required" : "auto")
  const last = request.messages[request.messages.length - 1]!
  const tool =
    tools.length === 0 || choice === "none"
      ? undefined
      : choice === "required"
        ? (pickTool(tools, textOf(last)) ?? tools[Math.floor(rand() * tools.length)])
        : last.role === "user"
          ? pickTool(tools, textOf(last))
          : undefined
  if (tool !== undefined) {
    const args = JSON.stringify(
      conformingInstance(tool.function.parameters, rand, words(textOf(last)).slice(-1)[0] ?? "", {
        quote: textOf(last)
      })
    )
    const call: ToolCall = {
      id: `chatcmpl-tool-${hexId(rand, 32)}`,
      type: "function",
      function: { name: tool.function.name, arguments: args }
    }
    return {
      content: null,
      toolCalls: [call],
      finishReason: "tool_calls",
      tokens: countTokens(tool.function.name + args)
    }
  }

  const format = request.response_format
  const raw =
    format?.type === "json_schema" && format.json_schema
      ? JSON.stringify(schemaAnswer(format.json_schema.schema, rand, toolFacts(request.messages), seedText, options))
      : format?.type === "json_object"
        ? JSON.stringify({ answer: proseFor(request, rand) })
        : proseFor(request, rand)
  const stopped = applyStop(raw, request.stop)
  const cut = truncate(stopped.text, maxTokens)
  return {
    content: cut.text,
    toolCalls: [],
    finishReason: cut.truncated ? "length" : "stop",
    tokens: cut.tokens
  }
}

/**
 * A json_schema answer: conforming, except for a `nonconformingRate` share of requests (decided by
 * a draw of its own from the request, so the answer's other draws do not move), which get one
 * field that misses the schema (json-instance.ts nonconformingInstance).
 */
const schemaAnswer = (
  schema: unknown,
  rand: () => number,
  facts: Record<string, unknown>,
  seedText: string,
  options: ChatModelOptions
): unknown => {
  const value = conformingInstance(schema, rand, "", { facts })
  const rate = options.nonconformingRate ?? 0
  if (rate <= 0) return value
  const own = prng(fnv1a(`${seedText}|nonconforming`))
  return own() < rate ? nonconformingInstance(schema, value, own) : value
}

/**
 * What the drawn text depends on: the prompt (messages, tools, tool_choice, response_format), the
 * model, the seed and the sampling parameters. Not `stop` or `max_completion_tokens` (they only cut
 * what was drawn), `n` (it only adds candidates; each has its index) or `stream`.
 */
export const samplingKey = (request: ChatRequest): string => {
  const { stream: _stream, stop: _stop, max_completion_tokens: _max, n: _n, ...drawn } = request
  return JSON.stringify(drawn)
}

/** Answers a validated request, or returns the 400 message for a rule only the model can check. */
export const complete = (
  request: ChatRequest,
  options: ChatModelOptions = {}
): { ok: ChatAnswer } | { badRequest: string } => {
  const context = ContextTokens[request.model]
  if (context === undefined) return { badRequest: `Bad Request: model ${request.model} is not a chat model` }
  const prompt = promptTokens(request)
  const maxTokens = request.max_completion_tokens ?? Limits.defaultMaxCompletionTokens
  if (prompt + maxTokens > context) {
    return {
      badRequest: `Bad Request: prompt (${prompt} tokens) plus max_completion_tokens (${maxTokens}) exceeds the context length of ${request.model} (${context} tokens)`
    }
  }
  const key = samplingKey(request)
  const candidates = Array.from({ length: request.n ?? 1 }, (_, i) => candidate(request, key, i, options))
  const completion = candidates.reduce((n, c) => n + c.tokens, 0)
  return {
    ok: {
      candidates: candidates.map(({ tokens: _t, ...c }) => c),
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: null
      }
    }
  }
}

/** Splits text into stream fragments of a few code points (never inside a surrogate pair). */
export const fragments = (text: string, size = 6): Array<string> => {
  const cps = [...text]
  const out: Array<string> = []
  for (let i = 0; i < cps.length; i += size) out.push(cps.slice(i, i + size).join(""))
  return out
}
