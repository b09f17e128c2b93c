/** The json_schema stand-in: every answer conforms (checked with Ajv) over a corpus of schemas. */
import { describe, expect, it } from "@effect/vitest"
import { prng } from "../../../src/emulator/hash.ts"
import {
  conformingInstance,
  makeInstance,
  nonconformingInstance,
  validatorFor
} from "../../../src/emulator/models/json-instance.ts"
import { realisticSchemas, suiteSchemas } from "./json-schema-corpus.ts"

const SEEDS = 40

const conforms = (schema: unknown, value: unknown) => validatorFor(schema)!(value) === true

describe("json_schema instances", () => {
  for (const { name, schema } of realisticSchemas) {
    it(`conform to ${name} for ${SEEDS} seeds`, () => {
      for (let seed = 1; seed <= SEEDS; seed++) {
        const value = conformingInstance(schema, prng(seed))
        expect(
          conforms(schema, value),
          `${name}, seed ${seed}: ${JSON.stringify(value)} ${JSON.stringify(validatorFor(schema)!.errors)}`
        ).toBe(true)
      }
    })
  }

  it("conform on a first draw for almost every realistic schema and seed", () => {
    let ok = 0
    let all = 0
    for (const { schema } of realisticSchemas) {
      for (let seed = 1; seed <= SEEDS; seed++, all++) if (conforms(schema, makeInstance(schema, prng(seed)))) ok++
    }
    expect(ok / all).toBeGreaterThanOrEqual(0.9)
  })

  it("conform to the JSON Schema Test Suite's satisfiable draft-04 schemas", () => {
    const suite = suiteSchemas()
    expect(suite.length).toBeGreaterThan(60)
    const failed = suite.filter(
      ({ schema }) => ![1, 2, 3].every((seed) => conforms(schema, conformingInstance(schema, prng(seed))))
    )
    expect(failed.map((f) => f.name)).toEqual([])
  })

  it("are the same for the same seed and differ across seeds", () => {
    const schema = realisticSchemas.find((s) => s.name === "$ref into $defs")!.schema
    expect(conformingInstance(schema, prng(5))).toEqual(conformingInstance(schema, prng(5)))
    const distinct = new Set(
      Array.from({ length: 10 }, (_, i) => JSON.stringify(conformingInstance(schema, prng(i + 1))))
    )
    expect(distinct.size).toBeGreaterThan(5)
  })

  it("put the user's text in passage-named string properties (quote)", () => {
    const schema = {
      type: "object",
      properties: {
        text: { type: "string" },
        source_text: { type: "string" },
        query: { type: "string" },
        passage: { type: "string" },
        other: { type: "string" }
      }
    }
    const value = conformingInstance(schema, prng(1), "", { quote: "the user's words" }) as Record<string, unknown>
    for (const k of ["text", "source_text", "query", "passage"]) expect(value[k]).toBe("the user's words")
    expect(value.other).not.toBe("the user's words")
  })

  it("reuse tool-result facts for properties of the same name when the type or enum fits, null for nullable", () => {
    const schema = {
      type: "object",
      properties: {
        city: { type: "string" },
        temp: { type: "number" },
        unit: { enum: ["C", "F"], type: "string" },
        note: { type: ["string", "null"] },
        count: { type: "integer" }
      },
      required: ["city", "temp", "unit", "note", "count"]
    }
    const value = conformingInstance(schema, prng(2), "", {
      facts: { city: "Osaka", temp: 21.5, unit: "K", note: null, count: "three" }
    }) as Record<string, unknown>
    expect(value).toMatchObject({ city: "Osaka", temp: 21.5, note: null })
    expect(["C", "F"]).toContain(value.unit)
    expect(Number.isInteger(value.count)).toBe(true)
  })

  it("can be made not to conform, for every schema of the corpus, the same way for the same draw", () => {
    for (const { name, schema } of realisticSchemas) {
      for (let seed = 1; seed <= 5; seed++) {
        const value = conformingInstance(schema, prng(seed))
        const broken = nonconformingInstance(schema, value, prng(seed + 100))
        expect(conforms(schema, broken), `${name}, seed ${seed}: ${JSON.stringify(broken)}`).toBe(false)
        expect(nonconformingInstance(schema, value, prng(seed + 100))).toEqual(broken)
      }
    }
  })

  it("miss a field's own constraint first (pattern), as a model does, not the whole shape", () => {
    const schema = {
      type: "object",
      properties: { code: { type: "string", pattern: "^[0-9]{6}$" } },
      required: ["code"]
    }
    const broken = nonconformingInstance(schema, conformingInstance(schema, prng(1)), prng(2))
    expect(validatorFor(schema)!(broken)).toBe(false)
    expect(validatorFor(schema)!.errors![0]).toMatchObject({ instancePath: "/code", keyword: "pattern" })
  })

  it("honour propertyNames on a first draw: invented keys fit it, optional keys it refuses are left out", () => {
    const schemas = [
      { type: "object", propertyNames: { pattern: "^[a-z]{2,5}$" }, minProperties: 3 },
      {
        type: "object",
        properties: { id: { type: "integer" }, long_optional_name: { type: "string" } },
        required: ["id"],
        propertyNames: { maxLength: 8 }
      },
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        propertyNames: { enum: ["ja", "en", "fr"] },
        additionalProperties: { type: "string" },
        minProperties: 2
      }
    ]
    for (const schema of schemas) {
      for (let seed = 1; seed <= SEEDS; seed++) {
        const value = makeInstance(schema, prng(seed))
        expect(conforms(schema, value), `${JSON.stringify(schema)}, seed ${seed}: ${JSON.stringify(value)}`).toBe(true)
      }
    }
  })

  it("are left as they are when the schema accepts anything", () => {
    expect(nonconformingInstance({}, { a: 1 }, prng(1))).toEqual({ a: 1 })
  })
})
