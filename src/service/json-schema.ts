/**
 * A JSON Schema compiled once, before any request: the validator of its dialect (chosen by
 * `$schema`: 2020-12 and 2019-09 with Ajv's 2020/2019 builds, draft-07 (the default) and draft-06
 * with Ajv's default build), with ajv-formats, or the problem with it and where it is (a JSON
 * pointer into the schema). A schema Ajv cannot compile is a mistake in the job or the call, never
 * a failure of an answer: callers compile when the job is loaded or before they send.
 */
import type { Ajv as AjvInstance, ValidateFunction } from "ajv"
import { Either } from "effect"
import { createRequire } from "node:module"

export type JsonSchema = Readonly<Record<string, unknown>>

/** What is wrong with a schema: `path` is a JSON pointer into it (`#` for the root). */
export interface SchemaProblem {
  readonly path: string
  readonly message: string
}

export const describeSchemaProblem = (p: SchemaProblem): string => `${p.path}: ${p.message}`

type Dialect = "2020-12" | "2019-09" | "draft-07" | "draft-06"

const DIALECTS: ReadonlyArray<readonly [RegExp, Dialect]> = [
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, "2020-12"],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, "2019-09"],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, "draft-07"],
  [/^https?:\/\/json-schema\.org\/draft-06\/schema#?$/, "draft-06"]
]

const require = createRequire(import.meta.url)

/** Silent: an unknown format is an annotation (not checked), not a line on the user's console. */
const quiet = { log: () => {}, warn: () => {}, error: () => {} }

// One Ajv per dialect, made on first use (its CommonJS build, synchronously: most commands never
// need it). `addUsedSchema: false`: a schema with an `$id` is not registered under it, so compiling
// the same schema again (another object, another stage) never throws "already exists".
const instances = new Map<Dialect, AjvInstance>()
/** Ajv's constructors, typed once: the CommonJS builds' exports differ between module resolutions. */
type AjvConstructor = new (options: object) => AjvInstance
const ajvClass = (id: string, name: string): AjvConstructor => (require(id) as Record<string, AjvConstructor>)[name]!

const ajvFor = (dialect: Dialect): AjvInstance => {
  const existing = instances.get(dialect)
  if (existing !== undefined) return existing
  const options = { allErrors: false, strict: false, addUsedSchema: false, logger: quiet }
  const ajv =
    dialect === "2020-12"
      ? new (ajvClass("ajv/dist/2020", "Ajv2020"))(options)
      : dialect === "2019-09"
        ? new (ajvClass("ajv/dist/2019", "Ajv2019"))(options)
        : new (ajvClass("ajv", "Ajv"))(options)
  if (dialect === "draft-06") {
    ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json") as object)
    ajv.opts.defaultMeta = "http://json-schema.org/draft-06/schema#"
  }
  const formats = require("ajv-formats") as { default?: unknown }
  ;((formats.default ?? formats) as (ajv: AjvInstance) => void)(ajv)
  instances.set(dialect, ajv)
  return ajv
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)
const pointer = (path: ReadonlyArray<string | number>) =>
  `#${path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")}`

/** The first place in `value` where `test(key, value)` holds, as a path. */
const find = (
  value: unknown,
  test: (key: string, v: unknown, parentKey: string | number | undefined) => boolean,
  path: Array<string | number> = []
): Array<string | number> | undefined => {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = find(value[i], test, [...path, i])
      if (hit) return hit
    }
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (test(k, v, path[path.length - 1])) return [...path, k]
      const hit = find(v, test, [...path, k])
      if (hit) return hit
    }
  }
  return undefined
}

const badRegExp = (source: string) => {
  try {
    new RegExp(source, "u")
    return false
  } catch {
    return true
  }
}

/** Where a compile error points, when its message does not say. */
const locate = (schema: unknown, message: string): string => {
  const ref = /can't resolve reference (\S+)/.exec(message)?.[1]
  const hit = ref
    ? find(schema, (k, v) => k === "$ref" && v === ref)
    : /regular expression/i.test(message)
      ? find(
          schema,
          (k, v, parent) =>
            (k === "pattern" && typeof v === "string" && badRegExp(v)) ||
            (parent === "patternProperties" && badRegExp(k))
        )
      : undefined
  return pointer(hit ?? [])
}

const compileFresh = (schema: JsonSchema): Either.Either<ValidateFunction, SchemaProblem> => {
  const declared = schema.$schema
  let dialect: Dialect = "draft-07"
  if (declared !== undefined) {
    const known = typeof declared === "string" ? DIALECTS.find(([re]) => re.test(declared)) : undefined
    if (known === undefined) {
      return Either.left({
        path: "#/$schema",
        message: `unsupported dialect ${JSON.stringify(declared)} (supported: draft 2020-12, 2019-09, draft-07, draft-06)`
      })
    }
    dialect = known[1]
  }
  // The dialect is chosen; Ajv judges the rest against its own copy of that meta-schema.
  const { $schema: _, ...rest } = schema
  const ajv = ajvFor(dialect)
  if (!(ajv.validateSchema(rest) as boolean)) {
    const e = ajv.errors?.[0]
    const allowed = (e?.params as { allowedValues?: unknown } | undefined)?.allowedValues
    return Either.left({
      path: `#${e?.instancePath ?? ""}`,
      message: `${e?.message ?? "is not a valid schema"}${Array.isArray(allowed) ? ` (${allowed.join(", ")})` : ""}`
    })
  }
  try {
    return Either.right(ajv.compile(rest))
  } catch (e) {
    const message = (e as Error).message
    return Either.left({ path: locate(rest, message), message })
  }
}

// By identity first (a stage's schema object), then by text (a caller building equal objects per
// call): an equal schema compiles once. Bounded: a program compiles a few schemas, not thousands.
const byObject = new WeakMap<object, Either.Either<ValidateFunction, SchemaProblem>>()
const byText = new Map<string, Either.Either<ValidateFunction, SchemaProblem>>()
const MAX_TEXTS = 256

/** The validator of `schema`, or what is wrong with it and where. */
export const compileJsonSchema = (schema: JsonSchema): Either.Either<ValidateFunction, SchemaProblem> => {
  let result = byObject.get(schema)
  if (result !== undefined) return result
  const text = JSON.stringify(schema)
  result = byText.get(text)
  if (result === undefined) {
    result = compileFresh(schema)
    if (byText.size >= MAX_TEXTS) byText.clear()
    byText.set(text, result)
  }
  byObject.set(schema, result)
  return result
}
