/**
 * Makes a value that conforms to a JSON Schema (draft-04 to 2020-12 keywords: type, const, enum,
 * $ref/$defs/definitions, allOf/anyOf/oneOf/not, if/then/else, properties, required (also keys
 * absent from `properties`), additional/patternProperties, min/maxProperties, dependencies,
 * items/prefixItems/additionalItems, min/maxItems, uniqueItems, contains, minimum/maximum (either
 * exclusive form, negative bounds), multipleOf, min/maxLength, pattern (randexp), format).
 * Drawn from `rand`, so the same seed gives the same value. `conformingInstance` checks each draw
 * with Ajv (as the client does, plus formats) and draws again, up to a few times, when one misses
 * a keyword this generator only approximates (`not`, `oneOf` overlaps, exotic patterns).
 */
import type { ValidateFunction } from "ajv"
import randexp from "randexp"
import { compileJsonSchema } from "../../service/json-schema.ts"

/**
 * A CommonJS package's export under either module resolution: the bundler-style resolution of
 * tsx/vitest types the default import as `module.exports`, NodeNext (the build) as the namespace.
 */
const cjsDefault = <A>(module: unknown): A => ((module as { default?: A }).default ?? module) as A
const RandExp = cjsDefault<typeof import("randexp").default>(randexp)

type JsonSchema = Record<string, unknown>

const WORDS = [
  "alpha",
  "bravo",
  "delta",
  "echo",
  "lima",
  "nova",
  "orbit",
  "pixel",
  "quartz",
  "river",
  "sierra",
  "tango"
]

const isObject = (v: unknown): v is JsonSchema => typeof v === "object" && v !== null && !Array.isArray(v)
const asSchema = (v: unknown): JsonSchema => (isObject(v) ? v : {})
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined)
const list = (v: unknown): ReadonlyArray<unknown> => (Array.isArray(v) ? v : [])
const pick = <A>(rand: () => number, options: ReadonlyArray<A>): A => options[Math.floor(rand() * options.length)]!
const cpLength = (s: string) => [...s].length

/** The JSON type of a value, as JSON Schema names it ("integer" for whole numbers). */
const jsonType = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : typeof v === "number"
        ? Number.isInteger(v)
          ? "integer"
          : "number"
        : typeof v
const typeAllows = (types: ReadonlyArray<string> | undefined, v: unknown): boolean => {
  if (types === undefined) return true
  const t = jsonType(v)
  return types.includes(t) || (t === "integer" && types.includes("number"))
}
const typesOf = (schema: JsonSchema): ReadonlyArray<string> | undefined =>
  typeof schema.type === "string"
    ? [schema.type]
    : Array.isArray(schema.type)
      ? (schema.type as ReadonlyArray<string>)
      : undefined

/**
 * What the stand-in model "read": `quote`, the user's text, is what it puts in a string property
 * named like a passage (`text`, `*_text`, `query`, `quote`, `passage`); `facts`, values from tool
 * results, are what it answers with for properties of the same name and a fitting type.
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
    type === "string"
      ? typeof value === "string"
      : type === "number"
        ? typeof value === "number"
        : type === "integer"
          ? Number.isInteger(value)
          : type === "boolean"
            ? typeof value === "boolean"
            : false
  )
}

// ---- formats ---------------------------------------------------------------------------------

const pad = (n: number, w = 2) => String(n).padStart(w, "0")
const hex = (rand: () => number, n: number) =>
  Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join("")
const date = (rand: () => number) =>
  `${2000 + Math.floor(rand() * 30)}-${pad(1 + Math.floor(rand() * 12))}-${pad(1 + Math.floor(rand() * 28))}`
const time = (rand: () => number) =>
  `${pad(Math.floor(rand() * 24))}:${pad(Math.floor(rand() * 60))}:${pad(Math.floor(rand() * 60))}Z`

const FORMATS: Readonly<Record<string, (rand: () => number) => string>> = {
  "date-time": (r) => `${date(r)}T${time(r)}`,
  date,
  time,
  duration: (r) => `P${1 + Math.floor(r() * 9)}DT${Math.floor(r() * 24)}H`,
  email: (r) => `${pick(r, WORDS)}.${pick(r, WORDS)}@example.com`,
  "idn-email": (r) => `${pick(r, WORDS)}@example.com`,
  hostname: (r) => `${pick(r, WORDS)}.example.com`,
  "idn-hostname": (r) => `${pick(r, WORDS)}.example.com`,
  ipv4: (r) => Array.from({ length: 4 }, () => Math.floor(r() * 256)).join("."),
  ipv6: (r) => Array.from({ length: 8 }, () => hex(r, 4)).join(":"),
  uri: (r) => `https://example.com/${pick(r, WORDS)}`,
  "uri-reference": (r) => `/${pick(r, WORDS)}`,
  iri: (r) => `https://example.com/${pick(r, WORDS)}`,
  "iri-reference": (r) => `/${pick(r, WORDS)}`,
  "uri-template": (r) => `https://example.com/{${pick(r, WORDS)}}`,
  url: (r) => `https://example.com/${pick(r, WORDS)}`,
  uuid: (r) => `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-${pick(r, ["8", "9", "a", "b"])}${hex(r, 3)}-${hex(r, 12)}`,
  "json-pointer": (r) => `/${pick(r, WORDS)}/${Math.floor(r() * 10)}`,
  "relative-json-pointer": (r) => `${Math.floor(r() * 3)}/${pick(r, WORDS)}`,
  regex: (r) => `^${pick(r, WORDS)}[0-9]+$`,
  byte: (r) => Buffer.from(pick(r, WORDS)).toString("base64"),
  int32: (r) => String(Math.floor(r() * 1000)),
  int64: (r) => String(Math.floor(r() * 1000)),
  float: (r) => String(Math.round(r() * 1000) / 10),
  double: (r) => String(Math.round(r() * 1000) / 10),
  password: (r) => `${pick(r, WORDS)}-${hex(r, 8)}`,
  binary: (r) => pick(r, WORDS)
}

const fromPattern = (pattern: string, rand: () => number): string | undefined => {
  try {
    const re = new RandExp(new RegExp(pattern, "u"))
    re.max = 6
    re.randInt = (a: number, b: number) => a + Math.floor(rand() * (b - a + 1))
    return re.gen()
  } catch {
    return undefined
  }
}

// ---- the generator -----------------------------------------------------------------------------

/** Past this depth objects get only their required properties and arrays only their minItems. */
const SPARSE_DEPTH = 10
/** Past this depth (a recursive schema that requires itself) the value is cut to null. */
const MAX_DEPTH = 48

const decodePointerPart = (part: string) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~")

/** Resolves a local `$ref` ("#", "#/…" JSON pointer, or an `$id`/`$anchor` in the root document). */
const resolveRef = (root: unknown, ref: string): unknown => {
  if (ref === "#" || ref === "") return root
  if (ref.startsWith("#/")) {
    let at: unknown = root
    for (const part of ref.slice(2).split("/").map(decodePointerPart)) {
      if (Array.isArray(at)) at = at[Number(part)]
      else if (isObject(at)) at = at[part]
      else return undefined
    }
    return at
  }
  // `$anchor` ("#name") or an `$id` naming a subschema.
  const name = ref.startsWith("#") ? ref.slice(1) : ref
  let found: unknown
  const walk = (node: unknown) => {
    if (found !== undefined || typeof node !== "object" || node === null) return
    if (isObject(node) && (node.$anchor === name || node.$id === ref || node.id === ref)) found = node
    for (const v of Object.values(node)) walk(v)
  }
  walk(root)
  return found
}

/** allOf: one schema that demands what every part demands (ranges narrowed, required united). */
const mergeAll = (base: JsonSchema, parts: ReadonlyArray<JsonSchema>): JsonSchema => {
  const merged: JsonSchema = { ...base }
  delete merged.allOf
  for (const p of parts) {
    for (const [k, v] of Object.entries(p)) {
      const had = merged[k]
      if (had === undefined) merged[k] = v
      else if (k === "properties" || k === "patternProperties" || k === "$defs" || k === "definitions")
        merged[k] = { ...asSchema(had), ...asSchema(v) }
      else if (k === "required") merged[k] = [...new Set([...list(had), ...list(v)])]
      else if (
        k === "minimum" ||
        k === "minLength" ||
        k === "minItems" ||
        k === "minProperties" ||
        k === "exclusiveMinimum"
      )
        merged[k] = typeof had === "number" && typeof v === "number" ? Math.max(had, v) : v
      else if (
        k === "maximum" ||
        k === "maxLength" ||
        k === "maxItems" ||
        k === "maxProperties" ||
        k === "exclusiveMaximum"
      )
        merged[k] = typeof had === "number" && typeof v === "number" ? Math.min(had, v) : v
      else if (k === "type") {
        const a = typeof had === "string" ? [had] : list(had)
        const b = typeof v === "string" ? [v] : list(v)
        const both = a
          .filter((t) => b.includes(t) || (t === "integer" && b.includes("number")))
          .concat(b.filter((t) => t === "integer" && a.includes("number")))
        merged[k] = both.length > 0 ? [...new Set(both)] : v
      } else if (k === "allOf") merged[k] = [...list(had), ...list(v)]
      else merged[k] = v
    }
  }
  return merged
}

class Generator {
  constructor(
    readonly root: unknown,
    readonly rand: () => number,
    readonly context: InstanceContext,
    readonly explore = false
  ) {}

  /** The schema with `$ref` and `allOf` folded in (draft 2019+: a $ref's siblings still apply). */
  flatten(schemaIn: unknown, seen = 0): JsonSchema {
    let schema = asSchema(schemaIn)
    if (typeof schema.$ref === "string" && seen < 32) {
      const { $ref, ...siblings } = schema
      const target = this.flatten(resolveRef(this.root, $ref as string), seen + 1)
      schema = Object.keys(siblings).length === 0 ? target : mergeAll(target, [siblings])
    }
    if (Array.isArray(schema.allOf) && seen < 32) {
      schema = mergeAll(
        schema,
        schema.allOf.map((p) => this.flatten(p, seen + 1))
      )
      if (Array.isArray(schema.allOf)) return this.flatten(schema, seen + 1)
    }
    return schema
  }

  make(schemaIn: unknown, hint: string, depth: number): unknown {
    if (schemaIn === true) return this.makeString({}, hint)
    if (schemaIn === false) return null
    let schema = this.flatten(schemaIn)
    if ("const" in schema) return schema.const
    const types = typesOf(schema)
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      const allowed = schema.enum.filter((v) => typeAllows(types, v))
      return pick(this.rand, allowed.length > 0 ? allowed : schema.enum)
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const options = list(schema[key])
      if (options.length > 0) {
        const { [key]: _options, ...rest } = schema
        // The first option on a first draw; any option on a draw after one that did not conform.
        const option = this.explore ? pick(this.rand, options) : options[0]
        schema = mergeAll(rest, [this.flatten(option)])
        return this.make(schema, hint, depth + 1)
      }
    }
    if (isObject(schema.if) && (isObject(schema.then) || isObject(schema.else))) {
      const { if: _if, then: thenS, else: elseS, ...rest } = schema
      // Take the `then` branch and satisfy `if` too, or the `else` branch when there is no `then`.
      return this.make(
        mergeAll(rest, thenS !== undefined ? [asSchema(_if), asSchema(thenS)] : [asSchema(elseS)]),
        hint,
        depth + 1
      )
    }
    if (depth > MAX_DEPTH) return null
    let type: unknown = types?.find((t) => t !== "null") ?? types?.[0]
    if (type === undefined) {
      type =
        schema.properties !== undefined ||
        schema.required !== undefined ||
        schema.additionalProperties !== undefined ||
        schema.minProperties !== undefined
          ? "object"
          : schema.items !== undefined || schema.prefixItems !== undefined || schema.minItems !== undefined
            ? "array"
            : schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined
              ? "number"
              : "string"
    }
    switch (type) {
      case "object":
        return this.makeObject(schema, hint, depth)
      case "array":
        return this.makeArray(schema, hint, depth)
      case "integer":
        return this.makeNumber(schema, true)
      case "number":
        return this.makeNumber(schema, false)
      case "boolean":
        return this.rand() < 0.5
      case "null":
        return null
      default:
        return this.makeString(schema, hint)
    }
  }

  makeString(schema: JsonSchema, hint: string): string {
    const min = num(schema.minLength) ?? 0
    const max = Math.max(min, num(schema.maxLength) ?? Math.max(64, min))
    const fit = (s: string) => {
      let out = s
      while (cpLength(out) < min) out += ` ${pick(this.rand, WORDS)}`
      return [...out].slice(0, max).join("")
    }
    if (typeof schema.pattern === "string") {
      const re = safeRegExp(schema.pattern)
      for (let i = 0; i < 8; i++) {
        const s = fromPattern(schema.pattern, this.rand)
        if (s !== undefined && cpLength(s) >= min && cpLength(s) <= max && (re === undefined || re.test(s))) return s
      }
    }
    const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined
    if (format !== undefined) return format(this.rand)
    return fit(hint !== "" ? hint : pick(this.rand, WORDS))
  }

  makeNumber(schema: JsonSchema, integer: boolean): number {
    const step = integer ? 1 : 1e-6
    // draft-04: exclusiveMinimum/Maximum are booleans qualifying minimum/maximum.
    const exMin = schema.exclusiveMinimum === true ? num(schema.minimum) : num(schema.exclusiveMinimum)
    const exMax = schema.exclusiveMaximum === true ? num(schema.maximum) : num(schema.exclusiveMaximum)
    const minimum = schema.exclusiveMinimum === true ? undefined : num(schema.minimum)
    const maximum = schema.exclusiveMaximum === true ? undefined : num(schema.maximum)
    const loBound = Math.max(minimum ?? -Infinity, exMin !== undefined ? exMin + step : -Infinity)
    const hiBound = Math.min(maximum ?? Infinity, exMax !== undefined ? exMax - step : Infinity)
    let lo = Number.isFinite(loBound) ? loBound : Number.isFinite(hiBound) ? Math.min(0, hiBound - 100) : 0
    let hi = Number.isFinite(hiBound) ? hiBound : lo + 100
    if (hi < lo) hi = lo
    const multipleOf = num(schema.multipleOf)
    if (multipleOf !== undefined && multipleOf > 0) {
      const decimals = Math.min(12, (String(multipleOf).split(".")[1] ?? "").length + 2)
      const kLo = Math.ceil(lo / multipleOf - 1e-9)
      const kHi = Math.floor(hi / multipleOf + 1e-9)
      for (let attempt = 0; attempt < 8; attempt++) {
        const k = kHi >= kLo ? kLo + Math.floor(this.rand() * Math.min(kHi - kLo + 1, 1000)) : kLo
        const v = Number((k * multipleOf).toFixed(decimals))
        if (!integer || Number.isInteger(v)) return Object.is(v, -0) ? 0 : v
      }
      return Number((kLo * multipleOf).toFixed(decimals))
    }
    if (integer) {
      lo = Math.ceil(lo)
      hi = Math.floor(hi)
      return lo + Math.floor(this.rand() * (Math.max(0, hi - lo) + 1))
    }
    const v = Math.round((lo + this.rand() * (hi - lo)) * 1000) / 1000
    return v < lo ? lo : v > hi ? hi : v
  }

  makeArray(schema: JsonSchema, hint: string, depth: number): Array<unknown> {
    const tuple = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : []
    const rest = Array.isArray(schema.items)
      ? schema.additionalItems
      : Array.isArray(schema.prefixItems)
        ? schema.items
        : schema.items
    const min = num(schema.minItems) ?? 0
    const maxAllowed = num(schema.maxItems) ?? Infinity
    const restForbidden = rest === false
    const wanted = depth > SPARSE_DEPTH ? min : Math.max(min, 1 + Math.floor(this.rand() * 3))
    const count = Math.min(
      maxAllowed,
      Math.max(wanted, Math.min(tuple.length, maxAllowed)),
      restForbidden ? tuple.length : Infinity
    )
    const out: Array<unknown> = []
    const seen = new Set<string>()
    const unique = schema.uniqueItems === true
    const contains = schema.contains
    for (let i = 0; i < count; i++) {
      const itemSchema =
        i < tuple.length
          ? tuple[i]
          : i === 0 && contains !== undefined
            ? mergeAll(this.flatten(rest), [this.flatten(contains)])
            : rest
      let item = this.make(itemSchema, hint, depth + 1)
      for (let attempt = 0; unique && seen.has(JSON.stringify(item)) && attempt < 12; attempt++)
        item = this.make(itemSchema, "", depth + 1)
      if (unique && seen.has(JSON.stringify(item))) {
        if (out.length >= min) break
      }
      seen.add(JSON.stringify(item))
      out.push(item)
    }
    return out
  }

  makeObject(schema: JsonSchema, hint: string, depth: number): Record<string, unknown> {
    const properties = asSchema(schema.properties)
    const required = list(schema.required).filter((k): k is string => typeof k === "string")
    const patternProps = Object.entries(asSchema(schema.patternProperties))
    const additional = schema.additionalProperties
    const maxProps = num(schema.maxProperties) ?? Infinity
    const minProps = num(schema.minProperties) ?? 0
    /** The schema a key's value must satisfy: its property schema, matching patterns, else additionalProperties. */
    const schemaFor = (key: string): unknown => {
      const matching = patternProps.filter(([p]) => safeRegExp(p)?.test(key)).map(([, s]) => this.flatten(s))
      const own = key in properties ? [this.flatten(properties[key])] : []
      const parts = [...own, ...matching]
      if (parts.length === 0) return additional === undefined || additional === true ? { type: "string" } : additional
      return parts.length === 1 ? parts[0] : mergeAll({}, parts)
    }
    const sparse = depth > SPARSE_DEPTH
    const keys: Array<string> = [...required]
    for (const key of Object.keys(properties)) if (!keys.includes(key) && !sparse) keys.push(key)
    // Dependencies: a present key brings the keys (or the schema's required keys) it depends on.
    const deps = { ...asSchema(schema.dependencies), ...asSchema(schema.dependentRequired) }
    const mandatory = new Set(required)
    for (let i = 0; i < keys.length; i++) {
      const dep = deps[keys[i]!]
      const more = Array.isArray(dep) ? dep : isObject(dep) ? list(dep.required) : []
      for (const k of more) {
        if (typeof k !== "string") continue
        if (!keys.includes(k)) keys.push(k)
        if (mandatory.has(keys[i]!)) mandatory.add(k)
      }
    }
    // propertyNames: every key is a string that must conform to it (`false`: no key at all).
    const names = schema.propertyNames
    const nameCheck = names === undefined || names === true ? null : validatorFor(this.flatten(names))
    const nameFits = (key: string) => names !== false && (nameCheck === null || nameCheck(key))
    // Keep every required (or depended-on) key; drop optional ones past maxProperties or whose name
    // propertyNames refuses.
    let budget = maxProps - mandatory.size
    const chosen = keys.filter((k) => mandatory.has(k) || (nameFits(k) && budget-- > 0))
    // minProperties: invent further keys the schema allows (a pattern's example, a name drawn from
    // propertyNames, else extra_N).
    for (let n = 1; chosen.length < minProps && n < 64; n++) {
      const fromPatternKey =
        patternProps.length > 0 ? fromPattern(patternProps[(n - 1) % patternProps.length]![0], this.rand) : undefined
      const drawn =
        isObject(names) && additional !== false
          ? this.make({ type: "string", ...this.flatten(names) }, "", depth + 1)
          : undefined
      const key =
        fromPatternKey !== undefined && !chosen.includes(fromPatternKey) && nameFits(fromPatternKey)
          ? fromPatternKey
          : additional === false
            ? undefined
            : typeof drawn === "string"
              ? drawn
              : `extra_${n}`
      if (key !== undefined && !chosen.includes(key) && nameFits(key)) chosen.push(key)
    }
    const out: Record<string, unknown> = {}
    for (const key of chosen) {
      const sub = schemaFor(key)
      const s = this.flatten(sub)
      // An optional property no value satisfies (`false`, `not: {}`) is left out.
      if (
        !mandatory.has(key) &&
        (sub === false || s.not === true || (isObject(s.not) && Object.keys(s.not).length === 0))
      )
        continue
      const fact = this.context.facts?.[key]
      if (fits(fact, s)) out[key] = fact
      else if (
        this.context.quote !== undefined &&
        QUOTED.test(key) &&
        (s.type === "string" || (Array.isArray(s.type) && s.type.includes("string"))) &&
        s.format === undefined &&
        s.pattern === undefined
      ) {
        out[key] = this.makeString({ maxLength: 2000, ...s }, this.context.quote)
      } else out[key] = this.make(sub, hint, depth + 1)
    }
    return out
  }
}

const regexCache = new Map<string, RegExp | undefined>()
const safeRegExp = (pattern: string): RegExp | undefined => {
  if (!regexCache.has(pattern)) {
    let re: RegExp | undefined
    try {
      re = new RegExp(pattern, "u")
    } catch {
      re = undefined
    }
    if (regexCache.size > 512) regexCache.clear()
    regexCache.set(pattern, re)
  }
  return regexCache.get(pattern)
}

/** One draw of an instance of `schema` (not checked: see `conformingInstance`). */
export const makeInstance = (
  schemaIn: unknown,
  rand: () => number,
  hint = "",
  depth = 0,
  context: InstanceContext = {},
  explore = false
): unknown => new Generator(schemaIn, rand, context, explore).make(schemaIn, hint, depth)

// ---- checked draws -----------------------------------------------------------------------------

/** The client's validator for `schema` (json-schema.ts: its dialect, formats), or null when it does not compile. */
export const validatorFor = (schema: unknown): ValidateFunction | null => {
  const compiled = compileJsonSchema(asSchema(schema))
  return compiled._tag === "Right" ? compiled.right : null
}

/** Draws until an instance passes Ajv (at most `tries` draws; the last draw when none does). */
export const conformingInstance = (
  schema: unknown,
  rand: () => number,
  hint = "",
  context: InstanceContext = {},
  tries = 8
): unknown => {
  const validate = validatorFor(schema)
  let value = makeInstance(schema, rand, hint, 0, context)
  for (let i = 1; i < tries && validate !== null && !validate(value); i++)
    value = makeInstance(schema, rand, "", 0, i < tries / 2 ? context : {}, true)
  return value
}

// ---- deliberately non-conforming answers ---------------------------------------------------------

type Path = ReadonlyArray<string | number>

const setAt = (value: unknown, path: Path, to: unknown | typeof REMOVE): unknown => {
  if (path.length === 0) return to
  const copy: unknown = structuredClone(value)
  let at = copy as Record<string | number, unknown>
  for (const part of path.slice(0, -1)) at = at[part] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  if (to === REMOVE) delete at[last]
  else at[last] = to
  return copy
}
const REMOVE: unique symbol = Symbol("remove")

/**
 * A value that does not conform to `schema`, made from `value` (a conforming one) the way a model
 * misses a schema: a constraint of one field (pattern, enum, format, range, length) first, else a
 * field of the wrong type, else a missing required key or an extra one where none are allowed.
 * Which field is drawn from `rand`. Returns `value` when nothing it tries breaks the schema.
 */
export const nonconformingInstance = (schema: unknown, value: unknown, rand: () => number): unknown => {
  const validate = validatorFor(schema)
  if (validate === null) return value
  const g = new Generator(schema, rand, {})
  const tiers: [Array<() => unknown>, Array<() => unknown>, Array<() => unknown>] = [[], [], []]
  const walk = (schemaAt: unknown, v: unknown, path: Path, depth: number) => {
    if (depth > 24) return
    const s = g.flatten(schemaAt)
    const put = (tier: 0 | 1 | 2, to: unknown) => tiers[tier].push(() => setAt(value, path, to))
    if (typeof v === "string") {
      if (typeof s.pattern === "string") put(0, `${v} does not match`)
      if (typeof s.format === "string") put(0, `not a ${s.format}: ${v}`)
      if ((num(s.minLength) ?? 0) > 0) put(0, "")
      if (num(s.maxLength) !== undefined) put(0, `${v}${"x".repeat((s.maxLength as number) + 1)}`)
      if (Array.isArray(s.enum) || "const" in s) put(0, `${v}-unlisted`)
      put(1, 42)
    } else if (typeof v === "number") {
      const lo = num(s.minimum) ?? num(s.exclusiveMinimum)
      const hi = num(s.maximum) ?? num(s.exclusiveMaximum)
      if (lo !== undefined) put(0, lo - 1)
      if (hi !== undefined) put(0, hi + 1)
      if (num(s.multipleOf) !== undefined) put(0, v + (s.multipleOf as number) / 2)
      if (Array.isArray(s.enum) || "const" in s) put(0, v + 0.5)
      if (Number.isInteger(v)) put(0, v + 0.5)
      put(1, String(v))
    } else if (typeof v === "boolean") {
      if (Array.isArray(s.enum) || "const" in s) put(0, !v)
      put(1, String(v))
    } else if (Array.isArray(v)) {
      if ((num(s.minItems) ?? 0) > 0) put(2, v.slice(0, num(s.minItems)! - 1))
      if (s.uniqueItems === true && v.length > 0) put(2, [...v, v[0]])
      put(1, JSON.stringify(v))
      const items = Array.isArray(s.items) ? undefined : s.items
      v.forEach((item, i) => walk(Array.isArray(s.items) ? s.items[i] : items, item, [...path, i], depth + 1))
    } else if (isObject(v)) {
      for (const key of list(s.required)) if (typeof key === "string" && key in v) put(2, setAt(v, [key], REMOVE))
      if (s.additionalProperties === false) put(2, { ...v, unexpected_field: "extra" })
      if (path.length > 0) put(1, "an object")
      const props = asSchema(s.properties)
      for (const [key, item] of Object.entries(v))
        walk(props[key] ?? s.additionalProperties, item, [...path, key], depth + 1)
    }
  }
  walk(schema, value, [], 0)
  for (const tier of tiers) {
    // A deterministic shuffle of the tier, so the broken field varies with the draw.
    const order = tier.map((make) => ({ make, key: rand() })).sort((a, b) => a.key - b.key)
    for (const { make } of order) {
      const broken = make()
      if (!validate(broken)) return broken
    }
  }
  return value
}
