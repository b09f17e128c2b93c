/** Schemas compiled before any request: the dialect by `$schema`, formats, and where a mistake is. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { vi } from "vitest"
import { compileJsonSchema } from "../../src/service/json-schema.ts"

const validator = (schema: Record<string, unknown>) => {
  const compiled = compileJsonSchema(schema)
  if (Either.isLeft(compiled)) throw new Error(`does not compile: ${JSON.stringify(compiled.left)}`)
  return compiled.right
}
const problem = (schema: Record<string, unknown>) => Either.flip(compileJsonSchema(schema)).pipe(Either.getOrThrow)

describe("compileJsonSchema", () => {
  it("compiles a draft 2020-12 schema (zod 4's default $schema) and applies its keywords", () => {
    const validate = validator({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false } },
      required: ["pair"]
    })
    expect(validate({ pair: ["a", 1] })).toBe(true)
    expect(validate({ pair: ["a", 1, 2] })).toBe(false)
    expect(validate({ pair: [1, "a"] })).toBe(false)
  })

  it("compiles draft-07 (the default without $schema) and 2019-09", () => {
    expect(validator({ $schema: "http://json-schema.org/draft-07/schema#", type: "string" })("x")).toBe(true)
    expect(validator({ type: "string" })(1)).toBe(false)
    const v2019 = validator({
      $schema: "https://json-schema.org/draft/2019-09/schema",
      type: "object",
      dependentRequired: { a: ["b"] }
    })
    expect(v2019({ a: 1 })).toBe(false)
  })

  it("names the path of a typo in a keyword's value", () => {
    expect(problem({ type: "object", properties: { age: { type: "interger" } } })).toMatchObject({
      path: "#/properties/age/type",
      message: expect.stringContaining("allowed values")
    })
  })

  it("names the path of a pattern that is not a regular expression and of a $ref that resolves nowhere", () => {
    expect(problem({ properties: { code: { type: "string", pattern: "[0-9" } } }).path).toBe(
      "#/properties/code/pattern"
    )
    expect(problem({ properties: { a: { $ref: "#/defs/missing" } } })).toMatchObject({
      path: "#/properties/a/$ref",
      message: expect.stringContaining("#/defs/missing")
    })
  })

  it("refuses a dialect it has no validator for, naming $schema", () => {
    expect(problem({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" })).toMatchObject({
      path: "#/$schema",
      message: expect.stringContaining("unsupported dialect")
    })
  })

  it("compiles equal schemas with the same $id again and again (new objects, no 'already exists')", () => {
    const make = () => ({ $id: "https://example.com/answer", type: "object", required: ["a"] })
    for (let i = 0; i < 3; i++) {
      expect(validator(make())({ a: 1 })).toBe(true)
      expect(validator({ ...make(), required: ["b"] })({ b: 1 })).toBe(true)
    }
  })

  it("checks known formats, and ignores unknown ones without a console warning", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    const log = vi.spyOn(console, "log").mockImplementation(() => {})
    try {
      const email = validator({ type: "string", format: "email" })
      expect(email("a@example.com")).toBe(true)
      expect(email("not an email")).toBe(false)
      expect(validator({ type: "string", format: "date" })("2025-02-30")).toBe(false)
      expect(validator({ type: "string", format: "nanoid-ish" })("anything")).toBe(true)
      expect(warn).not.toHaveBeenCalled()
      expect(log).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
      log.mockRestore()
    }
  })
})
