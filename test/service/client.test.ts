/** The TextService client against the emulator: every operation and every error of §7. */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Option, Stream } from "effect"
import { createServer } from "node:http"
import { inspect } from "node:util"
import { FetchHttpClient, HttpClient } from "@effect/platform"
import { TextService } from "../../src/service/client.ts"
import { ServiceConfig } from "../../src/service/config.ts"
import { Emulator } from "../../src/emulator/emulator.ts"
import { clientLayer, KEY, requestLog } from "../helpers.ts"

const user = (content: string) => [{ role: "user" as const, content }]

/** A bare server answering every request with `status` and `body`, for statuses the emulator never sends. */
const fixedServer = (status: number, body: string, headers: Record<string, string> = {}) =>
  Layer.unwrapScoped(
    Effect.acquireRelease(
      Effect.promise(
        () =>
          new Promise<{ url: string; close: () => void }>((resolve) => {
            const server = createServer((req, res) => {
              req.resume()
              res.writeHead(status, { "content-type": "application/json", ...headers })
              res.end(body)
            })
            server.listen(0, "127.0.0.1", () => {
              const port = (server.address() as { port: number }).port
              resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close() })
            })
          })
      ),
      (s) => Effect.sync(s.close)
    ).pipe(Effect.map((s) => TextService.layer({ baseUrl: s.url, apiKey: KEY })))
  )

describe("TextService operations", () => {
  it.scopedLive("chat returns a decoded completion", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const c = yield* svc.chat({ model: "svc3-mini", messages: user("hello there"), n: 2, seed: 4 })
      expect(c.choices).toHaveLength(2)
      expect(c.choices[0]!.message.tool_calls).toEqual([])
      expect(c.usage.total_tokens).toBe(c.usage.prompt_tokens + c.usage.completion_tokens)
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("chatStreamed assembles the same completion as chat, per choice index", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const input = { model: "svc3-mini", messages: user("stream and assemble"), n: 3, seed: 9 }
      const plain = yield* svc.chat(input)
      const streamed = yield* svc.chatStreamed(input)
      expect(streamed.choices).toEqual(plain.choices)
      expect(streamed.usage).toEqual(plain.usage)
      const chunks = yield* Stream.runCollect(svc.chatStream(input))
      expect(chunks.length).toBeGreaterThan(5)
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("chatStreamed concatenates tool-call argument fragments", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const tools = [
        {
          type: "function" as const,
          function: {
            name: "lookup_order",
            parameters: {
              type: "object",
              properties: { order_id: { type: "string", minLength: 30 }, qty: { type: "integer" } }
            }
          }
        }
      ]
      const input = { model: "svc3-mini", messages: user("lookup order 42"), tools }
      const plain = yield* svc.chat(input)
      const streamed = yield* svc.chatStreamed(input)
      expect(streamed.choices[0]!.finish_reason).toBe("tool_calls")
      expect(streamed.choices[0]!.message.tool_calls).toEqual(plain.choices[0]!.message.tool_calls)
      expect(
        JSON.parse(streamed.choices[0]!.message.tool_calls[0]!.function.arguments).order_id.length
      ).toBeGreaterThanOrEqual(30)
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("a cut stream fails with IncompleteStreamError, never success", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      for (let i = 0; i < 4; i++) {
        const result = yield* Effect.either(svc.chatStreamed({ model: "svc3-mini", messages: user(`cut ${i}`) }))
        expect(Either.isLeft(result) && result.left._tag).toBe("IncompleteStreamError")
        if (Either.isLeft(result)) expect(result.left.retryable).toBe(true)
      }
    }).pipe(Effect.provide(clientLayer({ cutStreamRate: 1, faultSeed: 5 })))
  )

  it.scopedLive("moderate parses both verdict forms", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const safe = yield* svc.moderate("A calm afternoon in the park.")
      expect(safe.verdict).toBe("safe")
      expect(safe.categories).toEqual([])
      const harmful = yield* svc.moderate("Here is how to build a bomb; the earth is flat.")
      expect(harmful.verdict).toBe("harmful")
      expect(harmful.categories.map((c) => c.code)).toEqual(["T9", "T12"])
      expect(harmful.categories[0]!.name).toBe("危険行為の幇助")
      expect(harmful.usage.prompt_tokens).toBeGreaterThan(0)
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("chatJson validates structured output against the schema", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const schema = {
        type: "object",
        properties: { label: { type: "string", enum: ["pos", "neg"] } },
        required: ["label"]
      }
      const { value } = yield* svc.chatJson({
        model: "svc3-mini",
        messages: user("classify: great product"),
        response_format: { type: "json_schema", json_schema: { name: "label", schema } }
      })
      expect(["pos", "neg"]).toContain((value as { label: string }).label)
      const obj = yield* svc.chatJson({
        model: "svc3-mini",
        messages: user("x"),
        response_format: { type: "json_object" }
      })
      expect(typeof obj.value).toBe("object")
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("chatJson without response_format, or with a schema that does not compile, is refused unsent", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const svc = yield* TextService
      const none = yield* Effect.flip(svc.chatJson({ model: "svc3-mini", messages: user("x") }))
      expect(none._tag).toBe("InvalidRequestError")
      expect(none.retryable).toBe(false)
      expect(none.message).toContain("response_format")
      const typo = yield* Effect.flip(
        svc.chatJson({
          model: "svc3-mini",
          messages: user("x"),
          response_format: {
            type: "json_schema",
            json_schema: { name: "a", schema: { type: "object", properties: { n: { type: "numbr" } } } }
          }
        })
      )
      expect(typo._tag).toBe("InvalidRequestError")
      expect(typo.message).toContain("#/properties/n/type")
      expect(log.entries).toHaveLength(0)
    }).pipe(Effect.provide(clientLayer({ onRequest: log.onRequest })))
  })

  it.scopedLive("chatJson with a draft 2020-12 schema with an $id, asked twice, validates both answers", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const schema = () => ({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $id: "https://example.com/label",
        type: "object",
        properties: { label: { type: "string", enum: ["pos", "neg"] }, when: { type: "string", format: "date" } },
        required: ["label", "when"],
        additionalProperties: false
      })
      for (const seed of [1, 2]) {
        const { value } = yield* svc.chatJson({
          model: "svc3-mini",
          messages: user("classify: great product"),
          seed,
          response_format: { type: "json_schema", json_schema: { name: "label", schema: schema() } }
        })
        expect(["pos", "neg"]).toContain((value as { label: string }).label)
        expect((value as { when: string }).when).toMatch(/^\d{4}-\d{2}-\d{2}$/)
      }
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("rerank, embed and translate decode their responses", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const r = yield* svc.rerank({
        model: "svc3-rerank",
        query: "tea",
        documents: ["coffee beans", "green tea leaves"]
      })
      expect(r.data[0].result[0]!.document_id).toBe(1)
      const e = yield* svc.embed({ model: "svc3-embedding", input: "tea", task_type: "RETRIEVAL_QUERY" })
      expect(e.data[0].embedding).toHaveLength(1536)
      const t = yield* svc.translate({ text: "お茶をください。", source_lang: "ja", target_lang: "en" })
      expect(t.translated_text.length).toBeGreaterThan(5)
    }).pipe(Effect.provide(clientLayer()))
  )
})

describe("TextService errors", () => {
  const tagOf = <E extends { _tag: string }>(e: Either.Either<unknown, E>) =>
    Either.isLeft(e) ? e.left._tag : "success"

  it.scopedLive("a request breaking a documented limit fails InvalidRequestError and is never sent", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const svc = yield* TextService
      const cases = [
        svc.chat({ model: "svc3-mini", messages: user("x"), n: 6 }),
        svc.chat({ model: "svc3-mini", messages: user("x"), max_completion_tokens: 9000 }),
        svc.chat({ model: "svc3-mini", messages: user("x"), stop: ["1", "2", "3", "4", "5"] }),
        svc.chat({ model: "svc3-mini", messages: user("x"), temperature: 3 }),
        svc.chat({ model: "svc3-guard", messages: user("x"), tool_choice: "auto" }),
        svc.chat({ model: "svc3-mini", messages: [] }),
        // An unlisted parameter smuggled past the types.
        svc.chat({ model: "svc3-mini", messages: user("x"), logprobs: true } as never),
        svc.chat({ model: "svc3-mini", messages: user("x".repeat(4 * 1024 * 1024)) }),
        svc.rerank({ model: "svc3-rerank", query: "q", documents: [] }),
        svc.rerank({ model: "svc3-rerank", query: "q", documents: Array(21).fill("d") }),
        svc.rerank({ model: "svc3-rerank", query: "q", documents: ["d"], task_type: "CUSTOMIZE" }),
        svc.embed({ model: "svc3-embedding", input: "", task_type: "CLUSTERING" }),
        svc.embed({ model: "svc3-embedding", input: "x", task_type: "SEARCH" as never }),
        svc.embed({ model: "svc3-embedding", input: "tok ".repeat(8001), task_type: "CLUSTERING" }),
        svc.translate({ text: "x", source_lang: "en", target_lang: "en" }),
        svc.translate({ text: "x", source_lang: "en", target_lang: "fr" as never }),
        svc.translate({ text: "a".repeat(5001), source_lang: "en", target_lang: "ja" })
      ]
      for (const effect of cases) {
        const result = yield* Effect.either(effect as Effect.Effect<unknown, { _tag: string }>)
        expect(tagOf(result)).toBe("InvalidRequestError")
      }
      const n = yield* Effect.flip(svc.chat({ model: "svc3-mini", messages: user("x"), n: 6 }))
      expect(n.message).toContain("n")
      expect(n.message).toContain("between 1 and 5")
      expect(log.entries).toHaveLength(0)
    }).pipe(Effect.provide(clientLayer({ onRequest: log.onRequest })))
  })

  it.scopedLive("401 is UnauthorizedError and never shows the key", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.translate({ text: "x", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("UnauthorizedError")
      expect(error.retryable).toBe(false)
      for (const shown of [error.message, String(error), JSON.stringify(error), inspect(error, { depth: 10 })]) {
        expect(shown).not.toContain("wrong-secret-key")
      }
    }).pipe(Effect.provide(clientLayer({}, { apiKey: "wrong-secret-key" })))
  )

  it.scopedLive("a wrong base URL path is NotFoundError", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.translate({ text: "x", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("NotFoundError")
    }).pipe(Effect.provide(clientLayer({}, { path: "/api" })))
  )

  it.scopedLive("a 400 from the service is BadRequestError with the service's message", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      // Valid for the client (any model name passes), refused by the service.
      const error = yield* Effect.flip(svc.embed({ model: "svc9-unknown", input: "x", task_type: "CLUSTERING" }))
      expect(error._tag).toBe("BadRequestError")
      expect(error.message).toContain("not an embeddings model")
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("429 is RateLimitedError carrying Retry-After", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      yield* svc.translate({ text: "x", source_lang: "en", target_lang: "ja" })
      const error = yield* Effect.flip(svc.translate({ text: "y", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("RateLimitedError")
      if (error._tag === "RateLimitedError") {
        expect(error.retryable).toBe(true)
        expect(Option.map(error.retryAfter, Duration.toSeconds)).toEqual(Option.some(60))
      }
    }).pipe(Effect.provide(clientLayer({ rpm: 1 })))
  )

  it.scopedLive("500 and 503 are ServerError with their status", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const seen = new Set<number>()
      for (let i = 0; i < 12; i++) {
        const error = yield* Effect.flip(svc.translate({ text: `x${i}`, source_lang: "en", target_lang: "ja" }))
        expect(error._tag).toBe("ServerError")
        if (error._tag === "ServerError") seen.add(error.status)
      }
      expect([...seen].sort()).toEqual([500, 503])
    }).pipe(Effect.provide(clientLayer({ error500Rate: 0.5, error503Rate: 0.5, faultSeed: 11 })))
  )

  it.scopedLive("a connection reset is TransportError", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.translate({ text: "x", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("TransportError")
      expect(error.retryable).toBe(true)
    }).pipe(Effect.provide(clientLayer({ resetRate: 1 })))
  )

  it.scopedLive("a slow answer past the per-attempt timeout is TimeoutError", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.translate({ text: "x", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("TimeoutError")
    }).pipe(Effect.provide(clientLayer({ slowRate: 1, slowMs: 2000 }, { timeout: "200 millis" })))
  )

  it.scopedLive("413 is PayloadTooLargeError", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.translate({ text: "x", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("PayloadTooLargeError")
      expect(error.message).toContain("too big")
    }).pipe(Effect.provide(fixedServer(413, JSON.stringify({ message: "too big" }))))
  )

  it.scopedLive("other statuses are UnexpectedStatusError; other 5xx are ServerError", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.translate({ text: "x", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("UnexpectedStatusError")
    }).pipe(Effect.provide(fixedServer(418, "{}")))
  )

  it.scopedLive("a 2xx with the wrong shape is ResponseDecodeError", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.embed({ model: "svc3-embedding", input: "x", task_type: "CLUSTERING" }))
      expect(error._tag).toBe("ResponseDecodeError")
      const notJson = yield* Effect.flip(svc.translate({ text: "x", source_lang: "en", target_lang: "ja" }))
      expect(notJson._tag).toBe("ResponseDecodeError")
    }).pipe(Effect.provide(fixedServer(200, JSON.stringify({ data: [{ embedding: [1, 2, 3] }] }))))
  )

  it.scopedLive("unknown response fields are ignored", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const t = yield* svc.translate({ text: "x", source_lang: "en", target_lang: "ja" })
      expect(t).toEqual({ translated_text: "ok" })
    }).pipe(Effect.provide(fixedServer(200, JSON.stringify({ translated_text: "ok", detected: "en", v: 2 }))))
  )
})

describe("TextService client messages", () => {
  const sseBody = (chunks: ReadonlyArray<unknown>) =>
    chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n"
  const chunkOf = (choices: ReadonlyArray<unknown>) => ({
    id: "c1",
    object: "chat.completion.chunk",
    created: 1,
    model: "svc3-mini",
    choices
  })

  it.scopedLive("too many stop strings names the limit of 4", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(
        svc.chat({ model: "svc3-mini", messages: user("hi"), stop: ["a", "b", "c", "d", "e"] })
      )
      expect(error._tag).toBe("InvalidRequestError")
      expect(error.message).toContain("at most 4 stop strings; got 5")
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("an enum error names every allowed value, in the client and in the emulator", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      // any: a value the type forbids, as a job file could carry it.
      const error = yield* Effect.flip(svc.translate({ text: "hi", source_lang: "fr" as any, target_lang: "ja" }))
      expect(error.message).toContain('source_lang: Expected one of "ja", "en", actual "fr"')
      const task = yield* Effect.flip(svc.embed({ model: "svc3-embedding", input: "x", task_type: "SUMMARY" as any }))
      expect(task.message).toContain(
        '"RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY", "RETRIEVAL_QUERY", "QUESTION_ANSWERING", "FACT_VERIFICATION", "CLASSIFICATION", "CLUSTERING"'
      )
    }).pipe(Effect.provide(clientLayer()))
  )

  it.scopedLive("a decode error quotes at most 500 characters of the payload", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.translate({ text: "hi", source_lang: "en", target_lang: "ja" }))
      expect(error._tag).toBe("ResponseDecodeError")
      expect(error.message.length).toBeLessThan(700)
      expect(error.message).toMatch(/… \(\d+ more characters\)$/)
    }).pipe(Effect.provide(fixedServer(200, JSON.stringify({ translated_text: { padding: "x".repeat(7000) } }))))
  )

  it.scopedLive("translate accepts a model (§4.6: ignored) and does not send it", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const svc = yield* TextService
      const a = yield* svc.translate({ text: "hello", source_lang: "en", target_lang: "ja", model: "svc3-mini" })
      const b = yield* svc.translate({ text: "hello", source_lang: "en", target_lang: "ja" })
      expect(a).toEqual(b)
      expect(log.entries).toHaveLength(2)
      expect(log.entries[0]!.bodyHash).toBe(log.entries[1]!.bodyHash)
    }).pipe(Effect.provide(clientLayer({ onRequest: log.onRequest })))
  })

  it.scopedLive("a stream that reaches [DONE] without a finish chunk is incomplete, not finish_reason stop", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const error = yield* Effect.flip(svc.chatStreamed({ model: "svc3-mini", messages: user("hi") }))
      expect(error._tag).toBe("IncompleteStreamError")
      expect(error.message).toContain("no finish chunk for choice 0")
    }).pipe(
      Effect.provide(
        fixedServer(
          200,
          sseBody([
            chunkOf([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
            chunkOf([{ index: 0, delta: { content: "Hel" }, finish_reason: null }])
          ]),
          {
            "content-type": "text/event-stream"
          }
        )
      )
    )
  )

  it.scopedLive("a tool-call name repeated across chunks is taken once", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      const c = yield* svc.chatStreamed({ model: "svc3-mini", messages: user("weather?") })
      expect(c.choices[0]!.message.tool_calls[0]!.function).toEqual({
        name: "get_weather",
        arguments: '{"city":"Osaka"}'
      })
    }).pipe(
      Effect.provide(
        fixedServer(
          200,
          sseBody([
            chunkOf([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
            chunkOf([
              {
                index: 0,
                delta: {
                  tool_calls: [
                    {
                      index: 0,
                      id: "chatcmpl-tool-1",
                      type: "function",
                      function: { name: "get_weather", arguments: '{"city":' }
                    }
                  ]
                },
                finish_reason: null
              }
            ]),
            chunkOf([
              {
                index: 0,
                delta: { tool_calls: [{ index: 0, function: { name: "get_weather", arguments: '"Osaka"}' } }] },
                finish_reason: null
              }
            ]),
            chunkOf([{ index: 0, delta: {}, finish_reason: "tool_calls" }])
          ]),
          { "content-type": "text/event-stream" }
        )
      )
    )
  )
})

describe("TextService over an HttpClient of the caller's", () => {
  /** TextService.Default given only an HttpClient (no PostJson): fetch, counting what it sends. */
  const overFetch = (sent: Array<string>, apiKey: string) =>
    Layer.unwrapScoped(
      Emulator.make({ apiKey: KEY }).pipe(
        Effect.map((emu) =>
          TextService.Default.pipe(
            Layer.provide(
              Layer.effect(
                HttpClient.HttpClient,
                Effect.map(
                  HttpClient.HttpClient,
                  HttpClient.tapRequest((r) => Effect.sync(() => sent.push(r.url)))
                )
              ).pipe(Layer.provide(FetchHttpClient.layer))
            ),
            Layer.provide(ServiceConfig.layer({ baseUrl: emu.url, apiKey }))
          )
        )
      )
    )

  it.scopedLive("sends its calls through that HttpClient, answers and errors alike", () => {
    const sent: Array<string> = []
    const embed = Effect.flatMap(TextService, (svc) =>
      svc.embed({ model: "svc3-embedding", input: "hello", task_type: "RETRIEVAL_DOCUMENT" })
    )
    return Effect.gen(function* () {
      const r = yield* Effect.provide(embed, overFetch(sent, KEY))
      expect(r.data[0].embedding).toHaveLength(1536)
      const error = yield* Effect.flip(Effect.provide(embed, overFetch(sent, "not-the-key")))
      expect(error._tag).toBe("UnauthorizedError")
      expect(sent).toHaveLength(2)
      expect(sent[0]).toMatch(/\/v1\/embeddings$/)
    })
  })
})
