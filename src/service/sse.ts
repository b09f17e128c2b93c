/**
 * Chat streaming (spec §2.6, §4.1): bytes → SSE events (through @effect/experimental's decoder,
 * which handles events split across writes, CRLF and comment lines) → chunks, and chunks →
 * one assembled ChatCompletion. A stream that ends or breaks before `data: [DONE]` fails with
 * IncompleteStreamError (rule 6) and is never returned as success.
 */
import * as Sse from "@effect/experimental/Sse"
import { Effect, Either, ParseResult, Ref, Schema, Stream } from "effect"
import { type Endpoint, IncompleteStreamError, ResponseDecodeError } from "./errors.ts"
import type { ChatCompletion, ChatCompletionChunk, ToolCall, Usage } from "./schemas/chat.ts"
import { ChatCompletionChunk as ChunkSchema } from "./schemas/chat.ts"

const decodeChunk = Schema.decodeUnknownEither(Schema.parseJson(ChunkSchema))

/** Turns a raw SSE body into chat chunks, failing unless the stream closes with `[DONE]`. */
export const decodeChatStream = <E>(
  endpoint: Endpoint,
  bytes: Stream.Stream<Uint8Array, E>
): Stream.Stream<ChatCompletionChunk, IncompleteStreamError | ResponseDecodeError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const state = yield* Ref.make({ done: false, chunks: 0 })
      const incomplete = (detail: string) =>
        Ref.get(state).pipe(
          Effect.flatMap((s) => Effect.fail(new IncompleteStreamError({ endpoint, detail, chunksReceived: s.chunks })))
        )
      const events = bytes.pipe(
        Stream.catchAll((cause) => Stream.fromEffect(incomplete(`connection broke: ${describe(cause)}`))),
        Stream.decodeText(),
        Stream.pipeThroughChannel(Sse.makeChannel()),
        Stream.takeUntil((event) => event.data === "[DONE]")
      )
      const chunks = events.pipe(
        Stream.mapEffect(
          (event): Effect.Effect<ReadonlyArray<ChatCompletionChunk>, IncompleteStreamError | ResponseDecodeError> => {
            if (event.data === "[DONE]") return Ref.update(state, (s) => ({ ...s, done: true })).pipe(Effect.as([]))
            return Either.match(decodeChunk(event.data), {
              onRight: (chunk) => Ref.update(state, (s) => ({ ...s, chunks: s.chunks + 1 })).pipe(Effect.as([chunk])),
              onLeft: (error) =>
                // §4.1 rule 6: after HTTP 200 an error has no guaranteed format; a body that is
                // JSON with a message but no choices is a server-side failure mid-stream.
                isErrorPayload(event.data)
                  ? incomplete(`error event after the stream began: ${event.data.slice(0, 300)}`)
                  : Effect.fail(
                      new ResponseDecodeError({ endpoint, detail: ParseResult.TreeFormatter.formatErrorSync(error) })
                    )
            })
          }
        ),
        Stream.flattenIterables
      )
      const closing = Stream.unwrap(
        Ref.get(state).pipe(
          Effect.map((s) =>
            s.done ? Stream.empty : Stream.fromEffect(incomplete("the stream ended before data: [DONE]"))
          )
        )
      )
      return Stream.concat(chunks, closing)
    })
  )

const isErrorPayload = (data: string): boolean => {
  try {
    const value: unknown = JSON.parse(data)
    return typeof value === "object" && value !== null && !("choices" in value)
  } catch {
    return false
  }
}

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : "unknown cause"

interface ChoiceState {
  role: string
  content: string
  sawContent: boolean
  finishReason: string | null
  toolCalls: Map<number, { id: string; type: string; name: string; arguments: string }>
}

/** The choice indexes of a stream that never got a finish chunk (an incomplete answer, §4.1). */
export const unfinishedChoices = (chunks: ReadonlyArray<ChatCompletionChunk>): ReadonlyArray<number> => {
  const seen = new Set<number>()
  const finished = new Set<number>()
  for (const chunk of chunks) {
    for (const c of chunk.choices) {
      seen.add(c.index)
      if (c.finish_reason) finished.add(c.index)
    }
  }
  return [...seen].filter((i) => !finished.has(i)).sort((a, b) => a - b)
}

/** Assembles streamed chunks into the completion a non-streaming call would have returned. */
export const assembleChunks = (chunks: ReadonlyArray<ChatCompletionChunk>): ChatCompletion => {
  const choices = new Map<number, ChoiceState>()
  let usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: null }
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage
    for (const c of chunk.choices) {
      let s = choices.get(c.index)
      if (s === undefined) {
        s = { role: "assistant", content: "", sawContent: false, finishReason: null, toolCalls: new Map() }
        choices.set(c.index, s)
      }
      if (c.delta.role) s.role = c.delta.role
      if (typeof c.delta.content === "string") {
        s.content += c.delta.content
        s.sawContent = true
      }
      for (const [position, d] of (c.delta.tool_calls ?? []).entries()) {
        const key = d.index ?? position
        const call = s.toolCalls.get(key) ?? { id: "", type: "function", name: "", arguments: "" }
        if (d.id) call.id = d.id
        if (d.type) call.type = d.type
        // The name comes whole in the call's first chunk; a server that repeats it is not appending.
        if (d.function?.name && call.name === "") call.name = d.function.name
        if (d.function?.arguments) call.arguments += d.function.arguments
        s.toolCalls.set(key, call)
      }
      if (c.finish_reason) s.finishReason = c.finish_reason
    }
  }
  const first = chunks[0]
  return {
    id: first?.id ?? "",
    object: "chat.completion",
    created: first?.created ?? 0,
    model: first?.model ?? "",
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, s]) => {
        const toolCalls: Array<ToolCall> = [...s.toolCalls.entries()]
          .sort(([a], [b]) => a - b)
          .map(([, t]) => ({ id: t.id, type: "function", function: { name: t.name, arguments: t.arguments } }))
        return {
          index,
          message: {
            role: s.role,
            content: toolCalls.length > 0 && s.content === "" ? null : s.content,
            tool_calls: toolCalls
          },
          finish_reason: s.finishReason ?? "stop",
          logprobs: null
        }
      }),
    usage
  }
}
