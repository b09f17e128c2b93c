/**
 * Structured output (spec §2.4): conformance is not guaranteed, so the client validates the text
 * against the JSON Schema it asked for, with Ajv (a maintained JSON Schema validator).
 */
import type { Ajv as AjvInstance, ValidateFunction } from "ajv"
import { Either } from "effect"
import { createRequire } from "node:module"
import { StructuredOutputError } from "./errors.ts"

// Loaded on the first validation (its CommonJS build, synchronously): most commands never need it.
let instance: AjvInstance | undefined
const ajv = (): AjvInstance => {
  if (instance === undefined) {
    const { Ajv } = createRequire(import.meta.url)("ajv") as typeof import("ajv")
    instance = new Ajv({ allErrors: false, strict: false })
  }
  return instance
}
const compiled = new WeakMap<object, ValidateFunction>()

/** Parses `raw` as JSON and checks it against `schema` (or, without one, that it is an object). */
export const validateStructured = (
  raw: string,
  schema: Record<string, unknown> | undefined
): Either.Either<unknown, StructuredOutputError> => {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (e) {
    return Either.left(new StructuredOutputError({ raw, detail: `not JSON: ${(e as Error).message}` }))
  }
  if (schema === undefined) {
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? Either.right(value)
      : Either.left(new StructuredOutputError({ raw, detail: "json_object output is not an object" }))
  }
  let validate = compiled.get(schema)
  if (validate === undefined) {
    validate = ajv().compile(schema)
    compiled.set(schema, validate)
  }
  if (validate(value)) return Either.right(value)
  const detail = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`).join("; ")
  return Either.left(new StructuredOutputError({ raw, detail }))
}
