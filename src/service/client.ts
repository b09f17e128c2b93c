/**
 * TextService: the one client every stage uses (spec §4). It validates every request before
 * sending (no request goes out that breaks a documented limit), maps every status of §7 to a typed
 * error, applies a per-attempt timeout, and decodes every response with its Schema.
 * Rate limiting and retries are the engine's; errors say whether they are retryable.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import type { ValidateFunction } from "ajv"
import { Effect, Either, Layer, Option, ParseResult, Redacted, Schema, Stream } from "effect"
import { layerFromEnv, ServiceConfig } from "./config.ts"
import {
  type Endpoint,
  errorForStatus,
  IncompleteStreamError,
  InvalidRequestError,
  ModerationParseError,
  ResponseDecodeError,
  type ServiceError,
  StructuredOutputError,
  TimeoutError,
  TransportError
} from "./errors.ts"
import { httpClientLayer, isTimeout } from "./http.ts"
import { type PostAnswer, ServicePost } from "./post-json.ts"
import { Models } from "./limits.ts"
import { parseVerdict, type Verdict } from "./moderation.ts"
import { ChatCompletion, type ChatCompletionChunk, ChatRequest, type Usage } from "./schemas/chat.ts"
import {
  EmbeddingsRequest,
  EmbeddingsResponse,
  RerankRequest,
  RerankResponse,
  TranslateRequest,
  TranslateResponse
} from "./schemas/endpoints.ts"
import { assembleChunks, decodeChatStream, unfinishedChoices } from "./sse.ts"
import { compileJsonSchema, describeSchemaProblem } from "./json-schema.ts"
import { validateStructured } from "./structured.ts"
import { type ToolHandler, toolRoundTrip } from "./tools.ts"
import { chatShape, prepareBody } from "./validate.ts"

export const Paths = {
  chat: "/v1/chat/completions",
  rerank: "/v1/rerank",
  embeddings: "/v1/embeddings",
  translate: "/v1/translate"
} as const

export type ChatInput = Omit<ChatRequest, "stream">
export type Moderation = Verdict & { readonly usage: Usage }

const prepareChat = prepareBody("chat", Paths.chat, ChatRequest, chatShape)
const prepareRerank = prepareBody("rerank", Paths.rerank, RerankRequest)
const prepareEmbeddings = prepareBody("embeddings", Paths.embeddings, EmbeddingsRequest)
const prepareTranslate = prepareBody("translate", Paths.translate, TranslateRequest)
/** §4.6: a `model` given to translate is ignored by the service; it is not sent. */
const withoutModel = ({ model: _model, ...rest }: TranslateRequest): TranslateRequest => rest

/** The body of an error response: `{message}` per §7, or whatever text came. */
const serviceMessage = (text: string): string => {
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === "object" && parsed !== null && "message" in parsed && typeof parsed.message === "string") {
      return parsed.message
    }
  } catch {
    // not JSON: keep the text
  }
  return text.slice(0, 500) || "(empty body)"
}

/** "200 text/html": what answered, for a body that is not the API's (a wrong base URL answers pages). */
const answeredAs = (status: number, contentType: string | undefined): string =>
  `${status} ${(contentType ?? "").split(";")[0]!.trim() || "(no content-type)"}`
const answered = (response: HttpClientResponse.HttpClientResponse): string =>
  answeredAs(response.status, response.headers["content-type"])

/** The start of a body, quoted on one line: enough to recognise an HTML page or a proxy's text. */
const sample = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat === "" ? "an empty body" : `'${flat.length > 40 ? `${flat.slice(0, 40)}…` : flat}'`
}

export class TextService extends Effect.Service<TextService>()("svc-batch/TextService", {
  effect: Effect.gen(function* () {
    const config = yield* ServiceConfig
    // No tracing span per request: at thousands of requests/s the spans cost more CPU than the
    // rest of the client (measured in the bench); the engine reports its own counters.
    const http = (yield* HttpClient.HttpClient).pipe(HttpClient.withTracerDisabledWhen(() => true))

    const request = (path: string, body: string) =>
      HttpClientRequest.post(config.baseUrl + path).pipe(
        HttpClientRequest.bearerToken(Redacted.value(config.apiKey)),
        HttpClientRequest.bodyText(body, "application/json")
      )

    /** The error's own text and its cause's (never the request or its headers). */
    const transport = (endpoint: Endpoint) => (error: { readonly message: string; readonly cause?: unknown }) => {
      if (isTimeout(error)) return new TimeoutError({ endpoint, after: config.timeout })
      const cause =
        error.cause instanceof Error
          ? `: ${error.cause.message}${error.cause.cause instanceof Error ? ` (${error.cause.cause.message})` : ""}`
          : ""
      return new TransportError({ endpoint, detail: error.message + cause })
    }

    /** Sends and returns the response when its status is 2xx, else the status's typed error. */
    const execute = (endpoint: Endpoint, path: string, body: string) =>
      http.execute(request(path, body)).pipe(
        Effect.mapError(transport(endpoint)),
        Effect.flatMap((response) =>
          response.status >= 200 && response.status < 300
            ? Effect.succeed(response)
            : response.text.pipe(
                Effect.orElseSucceed(() => ""),
                Effect.flatMap((text) =>
                  Effect.fail(
                    errorForStatus(endpoint, response.status, serviceMessage(text), response.headers["retry-after"])
                  )
                )
              )
        )
      )

    /** The answer's JSON through its Schema; `answered`: what answered, for the error. */
    const decodeJson = <A, I>(endpoint: Endpoint, schema: Schema.Schema<A, I>) => {
      const decode = Schema.decodeUnknownEither(schema)
      return (json: unknown, answered: () => string): Effect.Effect<A, ResponseDecodeError> =>
        Either.match(decode(json), {
          onRight: Effect.succeed,
          onLeft: (error) =>
            Effect.fail(
              new ResponseDecodeError({
                endpoint,
                detail: `${answered()}: not the documented shape: ${ParseResult.TreeFormatter.formatErrorSync(error)}`
              })
            )
        })
    }

    const decodeBody = <A, I>(endpoint: Endpoint, schema: Schema.Schema<A, I>) => {
      const decode = decodeJson(endpoint, schema)
      return (response: HttpClientResponse.HttpClientResponse) =>
        response.json.pipe(
          Effect.catchAll((e): Effect.Effect<never, ResponseDecodeError | TransportError | TimeoutError> =>
            e.reason === "Decode"
              ? // The text is cached by the response: read again for the sample.
                Effect.flatMap(
                  Effect.orElseSucceed(response.text, () => ""),
                  (text) =>
                    Effect.fail(
                      new ResponseDecodeError({
                        endpoint,
                        detail: `${answered(response)}: ${sample(text)} is not JSON`
                      })
                    )
                )
              : Effect.fail(transport(endpoint)(e))
          ),
          Effect.flatMap((json) => decode(json, () => answered(response)))
        )
    }

    /** A whole answer as PostJson read it: its status's typed error, or its JSON through `schema`. */
    const decodeAnswer = <A, I>(endpoint: Endpoint, schema: Schema.Schema<A, I>) => {
      const decode = decodeJson(endpoint, schema)
      return (answer: PostAnswer): Effect.Effect<A, ServiceError> => {
        if (answer.status < 200 || answer.status >= 300)
          return Effect.fail(errorForStatus(endpoint, answer.status, serviceMessage(answer.text), answer.retryAfter))
        const what = () => answeredAs(answer.status, answer.contentType)
        let json: unknown
        try {
          json = answer.text === "" ? null : JSON.parse(answer.text)
        } catch {
          return Effect.fail(
            new ResponseDecodeError({ endpoint, detail: `${what()}: ${sample(answer.text)} is not JSON` })
          )
        }
        return decode(json, what)
      }
    }

    // Request/response calls go through PostJson when the layer gives one (httpClientLayer does),
    // else through the HttpClient; streams always through the HttpClient.
    const post = Option.getOrUndefined(yield* Effect.serviceOption(ServicePost))
    const authorization = `Bearer ${Redacted.value(config.apiKey)}`

    /** The call to `path` of `endpoint`, its answer decoded with `schema`; built once per operation. */
    const caller = <A, I>(endpoint: Endpoint, path: string, schema: Schema.Schema<A, I>) => {
      const url = config.baseUrl + path
      if (post !== undefined) {
        const decode = decodeAnswer(endpoint, schema)
        const failed = transport(endpoint)
        return (body: string): Effect.Effect<A, ServiceError> =>
          post(url, authorization, body).pipe(Effect.mapError(failed), Effect.flatMap(decode))
      }
      const decode = decodeBody(endpoint, schema)
      return (body: string): Effect.Effect<A, ServiceError> =>
        execute(endpoint, path, body).pipe(Effect.flatMap(decode))
    }
    const callChat = caller("chat", Paths.chat, ChatCompletion)
    const callRerank = caller("rerank", Paths.rerank, RerankResponse)
    const callEmbeddings = caller("embeddings", Paths.embeddings, EmbeddingsResponse)
    const callTranslate = caller("translate", Paths.translate, TranslateResponse)

    /** §4.1, stream false. */
    const chat = (input: ChatInput): Effect.Effect<ChatCompletion, ServiceError> =>
      prepareChat({ ...input, stream: false }).pipe(Effect.flatMap(callChat))

    /** §4.1, stream true: the chunks as they arrive; fails IncompleteStreamError without `[DONE]`. */
    const chatStream = (input: ChatInput): Stream.Stream<ChatCompletionChunk, ServiceError | IncompleteStreamError> =>
      Stream.unwrap(
        prepareChat({ ...input, stream: true }).pipe(
          Effect.flatMap((body) => execute("chat", Paths.chat, body)),
          Effect.map((response) => decodeChatStream("chat", response.stream))
        )
      )

    /** A streamed chat, assembled per choice index into one ChatCompletion. */
    const chatStreamed = (input: ChatInput): Effect.Effect<ChatCompletion, ServiceError | IncompleteStreamError> =>
      Stream.runCollect(chatStream(input)).pipe(
        Effect.flatMap((collected) => {
          const chunks = [...collected]
          const unfinished = unfinishedChoices(chunks)
          return unfinished.length === 0 && chunks.length > 0
            ? Effect.succeed(assembleChunks(chunks))
            : Effect.fail(
                new IncompleteStreamError({
                  endpoint: "chat",
                  detail:
                    chunks.length === 0
                      ? "no chunk before data: [DONE]"
                      : `no finish chunk for choice ${unfinished.join(", ")} before data: [DONE]`,
                  chunksReceived: chunks.length
                })
              )
        })
      )

    /**
     * Structured output (§2.4): asks with `response_format` and validates the first choice against
     * the JSON Schema (json_schema) or as a JSON object (json_object). Without either, or with a
     * schema that does not compile, nothing is sent: InvalidRequestError, not a retryable failure.
     */
    const chatJson = (
      input: ChatInput
    ): Effect.Effect<
      { readonly value: unknown; readonly completion: ChatCompletion },
      ServiceError | StructuredOutputError
    > =>
      Effect.suspend(() => {
        const format = input.response_format
        if (format === undefined || format.type === "text") {
          return Effect.fail(
            new InvalidRequestError({
              endpoint: "chat",
              field: "response_format",
              limit: "chatJson needs response_format json_object or json_schema"
            })
          )
        }
        let validate: ValidateFunction | undefined
        if (format.type === "json_schema") {
          const compiled = compileJsonSchema(format.json_schema?.schema ?? {})
          if (Either.isLeft(compiled)) {
            return Effect.fail(
              new InvalidRequestError({
                endpoint: "chat",
                field: "response_format.json_schema.schema",
                limit: describeSchemaProblem(compiled.left)
              })
            )
          }
          validate = compiled.right
        }
        return chat(input).pipe(
          Effect.flatMap((completion) =>
            Either.match(validateStructured(completion.choices[0]?.message.content ?? "", validate), {
              onLeft: Effect.fail,
              onRight: (value) => Effect.succeed({ value, completion })
            })
          )
        )
      })

    /** §4.3: judges `text` with svc3-guard and parses the verdict (§2.7). */
    const moderate = (
      text: string,
      options: { readonly model?: string; readonly maxCompletionTokens?: number } = {}
    ): Effect.Effect<Moderation, ServiceError | ModerationParseError> =>
      chat({
        model: options.model ?? Models.guard,
        messages: [{ role: "user", content: text }],
        // A verdict with all twelve codes is under 40 tokens; a small cap leaves the context to the text.
        max_completion_tokens: options.maxCompletionTokens ?? 64
      }).pipe(
        Effect.flatMap((completion) => {
          const raw = completion.choices[0]?.message.content ?? ""
          return Either.match(parseVerdict(raw), {
            onLeft: (e: ModerationParseError) => Effect.fail(e),
            onRight: (v) => Effect.succeed({ ...v, usage: completion.usage })
          })
        })
      )

    /** §4.4 */
    const rerank = (input: RerankRequest): Effect.Effect<RerankResponse, ServiceError> =>
      prepareRerank(input).pipe(Effect.flatMap(callRerank))

    /** §4.5 */
    const embed = (input: EmbeddingsRequest): Effect.Effect<EmbeddingsResponse, ServiceError> =>
      prepareEmbeddings(input).pipe(Effect.flatMap(callEmbeddings))

    /** §4.6 */
    const translate = (input: TranslateRequest): Effect.Effect<TranslateResponse, ServiceError> =>
      prepareTranslate(withoutModel(input)).pipe(Effect.flatMap(callTranslate))

    /** §4.2: runs the model's tool calls with `handlers` and returns the final answer. */
    const chatWithTools = <E = never, R = never>(
      input: ChatInput,
      handlers: Readonly<Record<string, ToolHandler<E, R>>>
    ) => toolRoundTrip(chat, input, handlers)

    return { chat, chatStream, chatStreamed, chatJson, chatWithTools, moderate, rerank, embed, translate } as const
  })
}) {
  /** A TextService over undici for the given settings. */
  static readonly layer = (options: Parameters<typeof ServiceConfig.make>[0]) =>
    TextService.Default.pipe(Layer.provide(httpClientLayer), Layer.provide(ServiceConfig.layer(options)))

  /** A TextService configured from SVC_BASE_URL / SVC_API_KEY (environment, then `.env`). */
  static readonly layerFromEnv = TextService.Default.pipe(Layer.provide(httpClientLayer), Layer.provide(layerFromEnv))

  /**
   * A TextService for tests and benches: the given operations, and every other one dies naming
   * itself, so a test that reaches an operation it did not expect says which instead of failing
   * on `undefined is not a function`.
   */
  static readonly makeTest = (operations: Partial<TextServiceOperations>): TextService =>
    TextService.make({ ...unimplemented, ...operations } as TextServiceOperations)

  /** `makeTest` as a layer. */
  static readonly layerTest = (operations: Partial<TextServiceOperations>): Layer.Layer<TextService> =>
    Layer.succeed(TextService, TextService.makeTest(operations))
}

/** The operations of the service (the class's instance minus Effect's tag). */
export type TextServiceOperations = Omit<TextService, "_tag">

const dies = (name: string) => () => Effect.dieMessage(`TextService.${name} is not implemented by this test service`)
const unimplemented: TextServiceOperations = {
  chat: dies("chat"),
  chatStream: () => Stream.dieMessage("TextService.chatStream is not implemented by this test service"),
  chatStreamed: dies("chatStreamed"),
  chatJson: dies("chatJson"),
  chatWithTools: dies("chatWithTools"),
  moderate: dies("moderate"),
  rerank: dies("rerank"),
  embed: dies("embed"),
  translate: dies("translate")
}

export { ModerationParseError }
