/**
 * generate: a chat completion per record from a prompt template (spec §4.1), for summaries and
 * field extraction.
 * - `prompt` is a template over the record's fields, `{{field}}`; a missing field fails the record
 *   naming it (null is empty text).
 * - Text output: `<prefix>text` (a JSON list of texts when n > 1) and `<prefix>finish_reason`.
 * - `response_format: { type: json_schema, schema }` (inline, or a JSON file relative to the job
 *   file): compiled when the stage is built (a schema that does not compile refuses the job); the
 *   answer is validated here with Ajv, because the service does not guarantee
 *   conformance (§2.4). An answer that does not conform is asked again with a new seed, up to
 *   `validationAttempts` times, then the record fails with the validation errors. The object's
 *   top-level properties become typed columns `<prefix><property>` (string, number, boolean; json
 *   for the rest) beside `<prefix>json`. A `finish_reason` of `length` is a failure for JSON output:
 *   truncated JSON is not an answer.
 * - `tools` (presets in TypeScript): functions the model may call; the §4.2 round trip runs (the
 *   assistant message appended unchanged, each call answered by its handler with its tool_call_id,
 *   the final answer asked without tools), at most `maxToolRounds` rounds.
 * - `stream: true` streams the answer over SSE (a cut stream is retried as a whole).
 */
import { Effect, Schema } from "effect"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import type { Condition } from "../pipeline/condition.ts"
import { makeRequest, prepared, type Stage, StageInputError, type StageRequest } from "../pipeline/stage.ts"
import { column, type Column, ColumnType } from "../pipeline/columns.ts"
import type { TextService } from "../service/client.ts"
import type { IncompleteStreamError, ServiceError } from "../service/errors.ts"
import { Models } from "../service/limits.ts"
import {
  ChatParameters,
  type ChatCompletion,
  type ChatRequest,
  type Message,
  type Tool
} from "../service/schemas/chat.ts"
import { compileJsonSchema, describeSchemaProblem } from "../service/json-schema.ts"
import { validateStructured } from "../service/structured.ts"
import { type ToolCallError, type ToolHandler, toolRoundTrip } from "../service/tools.ts"
import { defineStageType } from "../pipeline/stage-type.ts"

type JsonSchema = Readonly<Record<string, unknown>>

export type OutputFormat =
  | { readonly type: "text" }
  | { readonly type: "json_object" }
  | { readonly type: "json_schema"; readonly name: string; readonly schema: JsonSchema; readonly strict?: boolean }

/** A function the model may call, with its handler (presets only: a job file cannot hold code). */
export interface GenerateTool {
  readonly name: string
  readonly description?: string
  readonly parameters: Tool["function"]["parameters"]
  readonly handler: ToolHandler<ToolCallError, never>
}

type Sampling = Partial<
  Pick<
    ChatRequest,
    | "frequency_penalty"
    | "max_completion_tokens"
    | "n"
    | "presence_penalty"
    | "repetition_penalty"
    | "seed"
    | "stop"
    | "temperature"
    | "top_p"
    | "top_k"
  >
>

export interface GenerateOptions extends Sampling {
  readonly prompt: string
  readonly system?: string
  readonly model?: string
  readonly response_format?: OutputFormat
  /** Asks per record for a conforming JSON answer (default 3). */
  readonly validationAttempts?: number
  readonly tools?: ReadonlyArray<GenerateTool>
  readonly maxToolRounds?: number
  readonly stream?: boolean
  /** Prefix of the output columns (default `generate_`). */
  readonly prefix?: string
  readonly when?: Condition
}

/** What the ledger keeps of a completion: each candidate's text and finish reason. */
const Generated = Schema.Struct({
  choices: Schema.Array(Schema.Struct({ content: Schema.NullOr(Schema.String), finish_reason: Schema.String })),
  toolCalls: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 })
})
type Generated = typeof Generated.Type

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g

/** The fields a template reads, in order, each once. */
export const templateFields = (template: string): ReadonlyArray<string> => [
  ...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))
]

/** The template filled from `fields`, or the first field it names that the record lacks. */
export const fillTemplate = (
  template: string,
  fields: Readonly<Record<string, unknown>>
): { readonly text: string } | { readonly missing: string } => {
  for (const name of templateFields(template)) if (fields[name] === undefined) return { missing: name }
  return {
    text: template.replace(PLACEHOLDER, (_, name: string) => {
      const v = fields[name]
      return v === null ? "" : typeof v === "string" ? v : JSON.stringify(v)
    })
  }
}

/** A failure the engine retries while `retryable` (a new seed each time), then reports. */
interface OutputRejected {
  readonly _tag: "SchemaMismatch" | "TruncatedOutput"
  readonly message: string
  readonly retryable: boolean
}

const columnTypeOf = (schema: unknown): ColumnType => {
  const declared = typeof schema === "object" && schema !== null ? (schema as JsonSchema).type : undefined
  // ["number", "null"] is a nullable number: every column is nullable anyway.
  const nonNull = Array.isArray(declared) ? declared.filter((t) => t !== "null") : [declared]
  const type = nonNull.length === 1 ? nonNull[0] : undefined
  return type === "string"
    ? ColumnType.string
    : type === "number" || type === "integer"
      ? ColumnType.number
      : type === "boolean"
        ? ColumnType.boolean
        : ColumnType.json
}

const toGenerated = (c: ChatCompletion, toolCalls = 0): Generated => ({
  choices: c.choices.map((ch) => ({ content: ch.message.content, finish_reason: ch.finish_reason })),
  toolCalls
})

export const generate = (options: GenerateOptions): Stage | string => {
  const model = options.model ?? Models.chat
  const prefix = options.prefix ?? "generate_"
  const format: OutputFormat = options.response_format ?? { type: "text" }
  const json = format.type !== "text"
  if (json && (options.n ?? 1) > 1) return "n: more than one candidate is not supported with JSON output"
  const attempts = options.validationAttempts ?? 3
  // Compiled now, when the job is loaded: a schema Ajv cannot compile is the job's mistake (exit 2
  // naming where in the schema), never a failure of the first answer.
  const compiled = format.type === "json_schema" ? compileJsonSchema(format.schema) : undefined
  if (compiled?._tag === "Left") return `response_format.schema: ${describeSchemaProblem(compiled.left)}`
  const validate = compiled?.right
  const {
    prompt,
    system,
    response_format: _f,
    validationAttempts: _v,
    tools: _t,
    maxToolRounds: _r,
    stream: _s,
    prefix: _p,
    when: _w,
    model: _m,
    ...sampling
  } = options
  const tools: ReadonlyArray<Tool> = (options.tools ?? []).map((t) => ({
    type: "function",
    function: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.parameters
    }
  }))
  const handlers = Object.fromEntries((options.tools ?? []).map((t) => [t.name, t.handler]))
  const out = {
    text: `${prefix}text`,
    finish: `${prefix}finish_reason`,
    json: `${prefix}json`,
    toolCalls: `${prefix}tool_calls`
  }
  const properties =
    format.type === "json_schema" ? Object.entries((format.schema.properties ?? {}) as Record<string, unknown>) : []
  const columns: Array<Column> = json
    ? [column(out.json, ColumnType.json), ...properties.map(([name, s]) => column(`${prefix}${name}`, columnTypeOf(s)))]
    : [column(out.text, (options.n ?? 1) > 1 ? ColumnType.json : ColumnType.string)]
  columns.push(column(out.finish, ColumnType.string))
  if (tools.length > 0) columns.push(column(out.toolCalls, ColumnType.number))
  const responseFormat: ChatRequest["response_format"] =
    format.type === "json_schema"
      ? {
          type: "json_schema",
          json_schema: {
            name: format.name,
            schema: format.schema,
            ...(format.strict !== undefined ? { strict: format.strict } : {})
          }
        }
      : format.type === "json_object"
        ? { type: "json_object" }
        : undefined

  const ask = (
    svc: TextService,
    messages: ReadonlyArray<Message>,
    seed: number | undefined
  ): Effect.Effect<
    { readonly g: Generated; readonly tokens: number },
    ServiceError | IncompleteStreamError | ToolCallError
  > => {
    const input = {
      model,
      messages,
      ...sampling,
      ...(seed !== undefined ? { seed } : {}),
      ...(responseFormat ? { response_format: responseFormat } : {})
    }
    if (tools.length > 0) {
      return toolRoundTrip(svc.chat, { ...input, tools }, handlers, options.maxToolRounds ?? 1).pipe(
        Effect.map((r) => ({ g: toGenerated(r.completion, r.toolCalls), tokens: r.completion.usage.total_tokens }))
      )
    }
    return (options.stream ? svc.chatStreamed(input) : svc.chat(input)).pipe(
      Effect.map((c) => ({ g: toGenerated(c), tokens: c.usage.total_tokens }))
    )
  }

  const request = (messages: ReadonlyArray<Message>, text: string): StageRequest<Generated> => {
    // Each attempt of this record's request asks with the next seed, so a retry is a new draw.
    let attempt = 0
    return makeRequest({
      endpoint: "chat",
      model,
      params: {
        system: system ?? null,
        sampling,
        response_format: responseFormat ?? null,
        tools: tools.map((t) => t.function),
        rounds: options.maxToolRounds ?? 1
      },
      text,
      answer: Generated,
      // Suspended: the engine re-runs the same effect on a retry, and each run must draw anew.
      send: (svc) =>
        Effect.suspend(() => {
          const n = attempt++
          const seed = json ? (options.seed ?? 0) + n : options.seed
          return ask(svc, messages, seed).pipe(
            Effect.flatMap(({ g, tokens }): Effect.Effect<{ value: Generated; tokens: number }, OutputRejected> => {
              if (!json) return Effect.succeed({ value: g, tokens })
              const choice = g.choices[0]
              if (choice?.finish_reason === "length") {
                return Effect.fail({
                  _tag: "TruncatedOutput",
                  message:
                    "the JSON answer was cut at max_completion_tokens (finish_reason length): raise max_completion_tokens",
                  retryable: false
                })
              }
              const checked = validateStructured(choice?.content ?? "", validate)
              if (checked._tag === "Left") {
                return Effect.fail({
                  _tag: "SchemaMismatch",
                  message: `the answer does not conform to the schema (attempt ${n + 1} of ${attempts}): ${checked.left.detail}`,
                  retryable: n + 1 < attempts
                })
              }
              return Effect.succeed({ value: g, tokens })
            })
          )
        })
    })
  }

  const nulls = Object.fromEntries(columns.map((c) => [c.name, null]))
  return {
    name: "generate",
    reads: templateFields(prompt),
    columns,
    calls: [{ endpoint: "chat", model }],
    ...(options.when ? { when: options.when } : {}),
    prepare: (fields) => {
      const filled = fillTemplate(prompt, fields)
      if ("missing" in filled)
        return new StageInputError({ message: `prompt: field ${JSON.stringify(filled.missing)} is missing` })
      const messages: Array<Message> = [
        ...(system !== undefined ? [{ role: "system" as const, content: system }] : []),
        { role: "user", content: filled.text }
      ]
      return prepared([request(messages, filled.text)], ([g]) => {
        const row: Record<string, unknown> = { ...nulls }
        const choices = g!.choices
        row[out.finish] = choices.map((c) => c.finish_reason).join(",")
        if (tools.length > 0) row[out.toolCalls] = g!.toolCalls
        if (!json) {
          row[out.text] = (options.n ?? 1) > 1 ? choices.map((c) => c.content ?? "") : (choices[0]?.content ?? null)
          return [row]
        }
        // Validated when it was received; parsed again here (the ledger keeps the text).
        const value = JSON.parse(choices[0]?.content ?? "null") as unknown
        row[out.json] = value
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          for (const [name] of properties) row[`${prefix}${name}`] = (value as Record<string, unknown>)[name] ?? null
        }
        return [row]
      })
    }
  }
}

const JsonSchemaObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const ResponseFormatOption = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({ type: Schema.Literal("json_object") }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    name: Schema.optionalWith(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/)), { default: () => "answer" }),
    /** The JSON Schema, inline or a .json file (relative to the job file). */
    schema: Schema.Union(JsonSchemaObject, Schema.NonEmptyString),
    strict: Schema.optional(Schema.Boolean)
  })
)

/** A schema file's object, or what is wrong with it. */
const loadSchema = (spec: JsonSchema | string, dir: string): JsonSchema | string => {
  if (typeof spec !== "string") return spec
  const path = resolve(dir, spec)
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"))
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as JsonSchema)
      : `response_format.schema: ${path} is not a JSON object`
  } catch (e) {
    return `response_format.schema: cannot read ${path}: ${(e as Error).message}`
  }
}

export const generateStage = defineStageType({
  name: "generate",
  description:
    "a chat completion per record from a prompt template ({{field}}); text, or JSON validated against a schema with its properties as columns",
  options: Schema.Struct({
    prompt: Schema.NonEmptyString,
    system: Schema.optional(Schema.String),
    model: Schema.optional(Schema.NonEmptyString),
    ...ChatParameters,
    response_format: Schema.optional(ResponseFormatOption),
    validationAttempts: Schema.optional(Schema.Int.pipe(Schema.between(1, 10))),
    stream: Schema.optional(Schema.Boolean),
    prefix: Schema.optional(Schema.String)
  }),
  make: (options, when, context) => {
    const { response_format, ...rest } = options
    let format: OutputFormat | undefined
    if (response_format?.type === "json_schema") {
      const schema = loadSchema(response_format.schema, context.dir)
      if (typeof schema === "string") return schema
      const compiled = compileJsonSchema(schema)
      if (compiled._tag === "Left" && typeof response_format.schema === "string") {
        const file = resolve(context.dir, response_format.schema)
        return `response_format.schema: ${file}: ${describeSchemaProblem(compiled.left)}`
      }
      format = {
        type: "json_schema",
        name: response_format.name,
        schema,
        ...(response_format.strict !== undefined ? { strict: response_format.strict } : {})
      }
    } else if (response_format !== undefined) format = response_format
    return generate({ ...rest, ...(format ? { response_format: format } : {}), ...(when ? { when } : {}) })
  }
})
