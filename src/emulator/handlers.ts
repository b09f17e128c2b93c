/**
 * Request bodies → answers, per endpoint. Validation uses the client's own schemas (so both sides
 * judge a request alike) with the messages of §7: chat is strict ("Invalid JSON or disallowed
 * fields" for malformed JSON or any unlisted field); rerank, embeddings and translate ignore
 * undefined parameters; a bad embeddings task_type says "task_type is invalid".
 */
import { Either, Schema } from "effect"
import { Models } from "../service/limits.ts"
import { ChatRequest } from "../service/schemas/chat.ts"
import { EmbeddingsRequest, EmbeddingTaskType, RerankRequest, TranslateRequest } from "../service/schemas/endpoints.ts"
import { decodeStrict, type Issue, issuesOf } from "../service/validate.ts"
import { countTokens } from "../service/tokens.ts"
import { type ChatModelOptions, complete, fragments, KnownChatModels } from "./models/chat.ts"
import { embed } from "./models/embeddings.ts"
import { rerank } from "./models/rerank.ts"
import { translate } from "./models/translate.ts"

export type Reply =
  | { readonly kind: "json"; readonly status: number; readonly body: unknown }
  | { readonly kind: "sse"; readonly events: ReadonlyArray<unknown> }

export const INVALID_JSON = "Invalid JSON or disallowed fields"

const bad = (message: string): Reply => ({ kind: "json", status: 400, body: { message } })
const ok = (body: unknown): Reply => ({ kind: "json", status: 200, body })
const describe = (issues: ReadonlyArray<Issue>) => `Bad Request: ${issues[0]!.field}: ${issues[0]!.message}`

let counter = 0
const prefix = Math.floor(Math.random() * 0xffffff)
  .toString(16)
  .padStart(6, "0")
/** Unique ids (§9 promises only uniqueness). */
const newId = (kind: string) => `${kind}-emu${prefix}${(counter++).toString(16).padStart(8, "0")}`
const now = () => Math.floor(Date.now() / 1000)

const decodeChat = decodeStrict(ChatRequest, "all")

export const handleChat = (json: unknown, options: ChatModelOptions = {}): Reply => {
  const decoded = decodeChat(json)
  if (Either.isLeft(decoded)) {
    return bad(decoded.left.some((i) => i.unexpected) ? INVALID_JSON : describe(decoded.left))
  }
  const request = decoded.right
  if (!KnownChatModels.has(request.model)) return bad(`Bad Request: model ${request.model} is not a chat model`)
  const answer = complete(request, options)
  if ("badRequest" in answer) return bad(answer.badRequest)
  const { candidates, usage } = answer.ok
  const id = newId("chatcmpl")
  const created = now()
  if (request.stream !== true) {
    return ok({
      id,
      object: "chat.completion",
      created,
      model: request.model,
      choices: candidates.map((c, index) => ({
        index,
        message: { role: "assistant", content: c.content, tool_calls: c.toolCalls },
        finish_reason: c.finishReason,
        logprobs: null
      })),
      usage
    })
  }
  // §2.6 / §4.1: per candidate a role chunk, content (or tool-call) fragments, a finish chunk;
  // candidates interleaved round-robin; then a usage chunk with empty choices.
  const chunk = (choices: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model: request.model,
    choices,
    ...extra
  })
  const perCandidate = candidates.map((c, index) => {
    const deltas: Array<Record<string, unknown>> = [{ role: "assistant", content: "" }]
    if (c.toolCalls.length > 0) {
      c.toolCalls.forEach((call, ti) => {
        const parts = fragments(call.function.arguments, 12)
        deltas.push({
          tool_calls: [
            {
              index: ti,
              id: call.id,
              type: "function",
              function: { name: call.function.name, arguments: parts[0] ?? "" }
            }
          ]
        })
        for (const part of parts.slice(1)) deltas.push({ tool_calls: [{ index: ti, function: { arguments: part } }] })
      })
    } else {
      for (const part of fragments(c.content ?? "")) deltas.push({ content: part })
    }
    const events = deltas.map((delta) => chunk([{ index, delta, finish_reason: null, logprobs: null }]))
    events.push(chunk([{ index, delta: {}, finish_reason: c.finishReason, logprobs: null }]))
    return events
  })
  const events: Array<unknown> = []
  const longest = Math.max(...perCandidate.map((e) => e.length))
  for (let i = 0; i < longest; i++) for (const list of perCandidate) if (i < list.length) events.push(list[i])
  events.push(chunk([], { usage }))
  return { kind: "sse", events }
}

const decodeLenient = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all" })
  return (input: unknown) => Either.mapLeft(decode(input), issuesOf)
}

/** The `object: "list"` envelope of rerank and embeddings responses (§2.8, §2.9). */
const list = (kind: string, model: string, data: ReadonlyArray<unknown>, usage: unknown): Reply =>
  ok({ id: newId(kind), object: "list", created: now(), model, data, usage })

const decodeRerank = decodeLenient(RerankRequest)
export const handleRerank = (json: unknown): Reply => {
  const decoded = decodeRerank(json)
  if (Either.isLeft(decoded)) return bad(describe(decoded.left))
  const r = decoded.right
  if (r.model !== Models.rerank) return bad(`Bad Request: model ${r.model} is not a rerank model`)
  const q = countTokens(r.query)
  const tokens = r.documents.reduce((n, d) => n + q + countTokens(d), 0)
  return list(
    "rerank",
    r.model,
    [
      {
        object: "reranked_document_list",
        index: 0,
        result: rerank(r.query, r.documents, { taskType: r.task_type, queryInstruction: r.query_instruction })
      }
    ],
    {
      prompt_tokens: tokens,
      completion_tokens: 0,
      total_tokens: tokens,
      prompt_tokens_details: null
    }
  )
}

const decodeEmbeddings = decodeLenient(EmbeddingsRequest)
const isTaskType = Schema.is(EmbeddingTaskType)
export const handleEmbeddings = (json: unknown): Reply => {
  if (typeof json === "object" && json !== null && !isTaskType((json as { task_type?: unknown }).task_type)) {
    return bad("task_type is invalid")
  }
  const decoded = decodeEmbeddings(json)
  if (Either.isLeft(decoded)) return bad(describe(decoded.left))
  const r = decoded.right
  if (r.model !== Models.embedding) return bad(`Bad Request: model ${r.model} is not an embeddings model`)
  const tokens = countTokens(r.input)
  return list("embd", r.model, [{ object: "embedding", index: 0, embedding: embed(r.input, r.task_type) }], {
    prompt_tokens: tokens,
    total_tokens: tokens
  })
}

const decodeTranslate = decodeLenient(TranslateRequest)
export const handleTranslate = (json: unknown): Reply => {
  const decoded = decodeTranslate(json)
  if (Either.isLeft(decoded)) return bad(describe(decoded.left))
  const r = decoded.right
  return ok({ translated_text: translate(r.text, r.source_lang, r.target_lang) })
}

/** The handler of each path, given what the models take from the knobs. */
export const makeHandlers = (options: ChatModelOptions = {}): Readonly<Record<string, (json: unknown) => Reply>> => ({
  "/v1/chat/completions": (json) => handleChat(json, options),
  "/v1/rerank": handleRerank,
  "/v1/embeddings": handleEmbeddings,
  "/v1/translate": handleTranslate
})

export const handlers = makeHandlers()

/** The rate-limit key of a request: its model, or "translate" (translate selects no model). */
export const rateKey = (path: string, json: unknown): string | undefined => {
  if (path === "/v1/translate") return "translate"
  const model = typeof json === "object" && json !== null ? (json as { model?: unknown }).model : undefined
  return typeof model === "string" ? model : undefined
}
