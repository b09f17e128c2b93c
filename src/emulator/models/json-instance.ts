/**
 * Makes a value that conforms to a JSON Schema (the subset used for structured output and tool
 * parameters: type, properties, required, items, enum, const, min/max, anyOf/oneOf/allOf).
 * Drawn from `rand`, so the same seed gives the same value.
 */

type JsonSchema = Record<string, unknown>

const WORDS = ["alpha", "bravo", "delta", "echo", "lima", "nova", "orbit", "pixel", "quartz", "river", "sierra", "tango"]

const asSchema = (v: unknown): JsonSchema => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonSchema) : {})
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined)

const makeString = (schema: JsonSchema, rand: () => number, hint: string): string => {
  const min = num(schema.minLength) ?? 0
  const max = num(schema.maxLength) ?? 64
  let s = hint !== "" ? hint : WORDS[Math.floor(rand() * WORDS.length)]!
  while ([...s].length < min) s += ` ${WORDS[Math.floor(rand() * WORDS.length)]}`
  return [...s].slice(0, Math.max(min, Math.min(max, [...s].length))).join("")
}

const makeNumber = (schema: JsonSchema, rand: () => number, integer: boolean): number => {
  let lo = num(schema.minimum) ?? (num(schema.exclusiveMinimum) !== undefined ? num(schema.exclusiveMinimum)! + (integer ? 1 : 1e-6) : 0)
  let hi = num(schema.maximum) ?? (num(schema.exclusiveMaximum) !== undefined ? num(schema.exclusiveMaximum)! - (integer ? 1 : 1e-6) : lo + 100)
  if (hi < lo) hi = lo
  if (integer) {
    lo = Math.ceil(lo)
    hi = Math.floor(hi)
    return lo + Math.floor(rand() * (hi - lo + 1))
  }
  return Math.round((lo + rand() * (hi - lo)) * 1000) / 1000
}

/**
 * What the stand-in model "read": `quote`, the user's text, is what it puts in a string property
 * named like a passage (`text`, `*_text`, `query`, `quote`); `facts`, values from tool results, are
 * what it answers with for properties of the same name and a fitting type.
 */
export interface InstanceContext {
  readonly quote?: string
  readonly facts?: Readonly<Record<string, unknown>>
}

const QUOTED = /(^|_)(text|query|quote|passage)$/

/** A fact fits a property when its JSON type is the property's (and it is one of an enum's values). */
const fits = (value: unknown, schema: JsonSchema): boolean => {
  if (value === undefined) return false
  const types = Array.isArray(schema.type) ? (schema.type as ReadonlyArray<unknown>) : [schema.type]
  if (value === null) return types.includes("null")
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false
  return types.some((type) =>
    type === "string" ? typeof value === "string" : type === "number" ? typeof value === "number" : type === "integer" ? Number.isInteger(value) : type === "boolean" ? typeof value === "boolean" : false
  )
}

export const makeInstance = (schemaIn: unknown, rand: () => number, hint = "", depth = 0, context: InstanceContext = {}): unknown => {
  const schema = asSchema(schemaIn)
  if ("const" in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[Math.floor(rand() * schema.enum.length)]
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key]
    if (Array.isArray(options) && options.length > 0) return makeInstance(options[0], rand, hint, depth + 1)
  }
  if (Array.isArray(schema.allOf)) {
    const merged: JsonSchema = {}
    for (const part of schema.allOf) {
      const p = asSchema(part)
      Object.assign(merged, p, {
        properties: { ...asSchema(merged.properties), ...asSchema(p.properties) },
        required: [...(Array.isArray(merged.required) ? merged.required : []), ...(Array.isArray(p.required) ? p.required : [])]
      })
    }
    return makeInstance(merged, rand, hint, depth + 1)
  }
  let type = schema.type
  if (Array.isArray(type)) type = type.find((t) => t !== "null") ?? type[0]
  if (type === undefined) type = schema.properties !== undefined ? "object" : schema.items !== undefined ? "array" : "string"
  if (depth > 8) return null
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {}
      for (const [key, sub] of Object.entries(asSchema(schema.properties))) {
        const s = asSchema(sub)
        const fact = context.facts?.[key]
        if (fits(fact, s)) out[key] = fact
        else if (context.quote !== undefined && QUOTED.test(key) && (s.type === "string" || (Array.isArray(s.type) && s.type.includes("string")))) out[key] = makeString({ maxLength: 2000, ...s }, rand, context.quote)
        else out[key] = makeInstance(sub, rand, hint, depth + 1, context)
      }
      return out
    }
    case "array": {
      const min = num(schema.minItems) ?? 1
      const max = num(schema.maxItems) ?? Math.max(min, 3)
      const count = Math.min(max, Math.max(min, 1 + Math.floor(rand() * 3)))
      return Array.from({ length: count }, () => makeInstance(schema.items, rand, hint, depth + 1))
    }
    case "integer":
      return makeNumber(schema, rand, true)
    case "number":
      return makeNumber(schema, rand, false)
    case "boolean":
      return rand() < 0.5
    case "null":
      return null
    default:
      return makeString(schema, rand, hint)
  }
}
