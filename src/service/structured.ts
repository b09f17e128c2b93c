/**
 * Structured output (spec §2.4): conformance is not guaranteed, so the client validates the text
 * against the JSON Schema it asked for, with the validator compiled (json-schema.ts) before the
 * request was sent: a schema that does not compile never reaches this point.
 */
import type { ValidateFunction } from "ajv"
import { Either } from "effect"
import { StructuredOutputError } from "./errors.ts"

/** Parses `raw` as JSON and checks it with `validate` (or, without one, that it is an object). */
export const validateStructured = (
  raw: string,
  validate: ValidateFunction | undefined
): Either.Either<unknown, StructuredOutputError> => {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (e) {
    return Either.left(new StructuredOutputError({ raw, detail: `not JSON: ${(e as Error).message}` }))
  }
  if (validate === undefined) {
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? Either.right(value)
      : Either.left(new StructuredOutputError({ raw, detail: "json_object output is not an object" }))
  }
  if (validate(value)) return Either.right(value)
  const detail = (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`).join("; ")
  return Either.left(new StructuredOutputError({ raw, detail }))
}
