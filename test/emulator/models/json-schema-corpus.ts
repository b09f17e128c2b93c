/**
 * Schemas the json_schema stand-in is measured on: the kinds of schema structured output and tool
 * parameters use (each case names the keyword it exercises), and the JSON Schema Test Suite's
 * draft-04 schemas that have a valid instance and mean the same under Ajv's default draft.
 */
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { validatorFor } from "../../../src/emulator/models/json-instance.ts"

export const realisticSchemas: ReadonlyArray<{ readonly name: string; readonly schema: Record<string, unknown> }> = [
  {
    name: "negative maximum without minimum",
    schema: {
      type: "object",
      properties: { t: { type: "number", maximum: -5 }, i: { type: "integer", maximum: -3 } },
      required: ["t", "i"]
    }
  },
  {
    name: "exclusive bounds",
    schema: {
      type: "object",
      properties: {
        p: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        q: { type: "integer", exclusiveMaximum: -10 }
      },
      required: ["p", "q"]
    }
  },
  {
    name: "$ref into $defs",
    schema: {
      type: "object",
      $defs: {
        person: {
          type: "object",
          properties: { name: { type: "string", minLength: 2 }, age: { type: "integer", minimum: 0, maximum: 120 } },
          required: ["name", "age"]
        }
      },
      properties: {
        owner: { $ref: "#/$defs/person" },
        friends: { type: "array", items: { $ref: "#/$defs/person" }, minItems: 1 }
      },
      required: ["owner", "friends"]
    }
  },
  {
    name: "$ref into definitions",
    schema: {
      definitions: { level: { enum: ["low", "mid", "high"] } },
      type: "object",
      properties: { level: { $ref: "#/definitions/level" } },
      required: ["level"]
    }
  },
  {
    name: "recursive $ref",
    schema: {
      $defs: {
        node: {
          type: "object",
          properties: {
            value: { type: "integer" },
            children: { type: "array", items: { $ref: "#/$defs/node" }, maxItems: 2 }
          },
          required: ["value"]
        }
      },
      $ref: "#/$defs/node"
    }
  },
  {
    name: "uniqueItems",
    schema: {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, minItems: 4, uniqueItems: true },
        codes: { type: "array", items: { type: "integer", minimum: 1, maximum: 6 }, minItems: 5, uniqueItems: true }
      },
      required: ["tags", "codes"]
    }
  },
  {
    name: "pattern",
    schema: {
      type: "object",
      properties: {
        sku: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" },
        zip: { type: "string", pattern: "^\\d{3}-\\d{4}$" },
        slug: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", maxLength: 30 }
      },
      required: ["sku", "zip", "slug"]
    }
  },
  {
    name: "format",
    schema: {
      type: "object",
      properties: Object.fromEntries(
        [
          "email",
          "date",
          "date-time",
          "time",
          "uri",
          "uuid",
          "ipv4",
          "ipv6",
          "hostname",
          "duration",
          "uri-reference",
          "json-pointer",
          "regex"
        ].map((f) => [f.replace(/-/g, "_"), { type: "string", format: f }])
      ),
      required: ["email", "date", "date_time", "uuid", "uri"]
    }
  },
  { name: "minProperties", schema: { type: "object", properties: { a: { type: "string" } }, minProperties: 3 } },
  {
    name: "minProperties with patternProperties only",
    schema: {
      type: "object",
      patternProperties: { "^x-[a-z]+$": { type: "integer" } },
      additionalProperties: false,
      minProperties: 2
    }
  },
  {
    name: "maxProperties below the properties",
    schema: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "string" }, d: { type: "string" } },
      required: ["d"],
      maxProperties: 2
    }
  },
  {
    name: "multipleOf",
    schema: {
      type: "object",
      properties: {
        price: { type: "number", multipleOf: 0.01, minimum: 1, maximum: 2 },
        step: { type: "integer", multipleOf: 5, minimum: -12, maximum: 12 },
        neg: { type: "number", multipleOf: 0.25, maximum: -1 }
      },
      required: ["price", "step", "neg"]
    }
  },
  {
    name: "required key absent from properties",
    schema: { type: "object", properties: { a: { type: "string" } }, required: ["a", "b", "c"] }
  },
  {
    name: "required key with additionalProperties schema",
    schema: {
      type: "object",
      properties: {},
      required: ["count"],
      additionalProperties: { type: "integer", minimum: 10 }
    }
  },
  {
    name: "nesting 20 deep",
    schema: Array.from({ length: 20 }).reduce<Record<string, unknown>>(
      (inner, _, i) => ({
        type: "object",
        properties: { [`l${20 - i}`]: inner, n: { type: "integer" } },
        required: [`l${20 - i}`]
      }),
      { type: "string", minLength: 3 }
    )
  },
  {
    name: "anyOf with nullable",
    schema: {
      type: "object",
      properties: { v: { anyOf: [{ type: "string", maxLength: 5 }, { type: "null" }] } },
      required: ["v"]
    }
  },
  {
    name: "oneOf of tagged objects",
    schema: {
      type: "object",
      properties: {
        shape: {
          oneOf: [
            {
              type: "object",
              properties: { kind: { const: "circle" }, r: { type: "number", minimum: 0 } },
              required: ["kind", "r"],
              additionalProperties: false
            },
            {
              type: "object",
              properties: { kind: { const: "square" }, side: { type: "number" } },
              required: ["kind", "side"],
              additionalProperties: false
            }
          ]
        }
      },
      required: ["shape"]
    }
  },
  {
    name: "allOf with $ref and extra required",
    schema: {
      $defs: { base: { type: "object", properties: { id: { type: "string", format: "uuid" } }, required: ["id"] } },
      allOf: [
        { $ref: "#/$defs/base" },
        { properties: { score: { type: "number", minimum: 0.5, maximum: 0.75 } }, required: ["score"] }
      ]
    }
  },
  {
    name: "enum with type",
    schema: {
      type: "object",
      properties: {
        s: { type: "string", enum: [1, "one", null] },
        label: { enum: ["positive", "negative", "neutral"] }
      },
      required: ["s", "label"]
    }
  },
  {
    name: "tuple items",
    schema: { type: "array", items: [{ type: "string" }, { type: "integer" }], additionalItems: false, minItems: 2 }
  },
  {
    name: "contains",
    schema: { type: "array", items: { type: "integer" }, contains: { type: "integer", minimum: 100 }, minItems: 2 }
  },
  {
    name: "not",
    schema: {
      type: "object",
      properties: { s: { type: "string", not: { enum: ["alpha", "bravo", "delta", "echo"] } } },
      required: ["s"]
    }
  },
  {
    name: "string lengths",
    schema: {
      type: "object",
      properties: { short: { type: "string", maxLength: 2 }, long: { type: "string", minLength: 40, maxLength: 45 } },
      required: ["short", "long"]
    }
  },
  {
    name: "dependentRequired",
    schema: {
      type: "object",
      properties: { card: { type: "string" }, billing: { type: "string" } },
      dependentRequired: { card: ["billing", "cvv"] }
    }
  },
  {
    name: "if/then",
    schema: {
      type: "object",
      properties: { country: { enum: ["JP", "US"] } },
      required: ["country"],
      if: { properties: { country: { const: "JP" } } },
      then: { required: ["prefecture"] }
    }
  },
  {
    name: "tool parameters with formats",
    schema: {
      type: "object",
      properties: {
        query: { type: "string" },
        since: { type: "string", format: "date" },
        notify: { type: "string", format: "email" },
        limit: { type: "integer", minimum: 1, maximum: 50 }
      },
      required: ["query", "since", "notify"]
    }
  }
]

interface SuiteGroup {
  readonly description: string
  readonly schema: unknown
  readonly tests: ReadonlyArray<{ readonly description: string; readonly data: unknown; readonly valid: boolean }>
}

/**
 * The JSON Schema Test Suite's draft-04 groups (npm `json-schema-test-suite`) that have a valid
 * instance, use no remote $ref, and that Ajv (draft-07, as the client uses it) judges exactly as
 * the suite does — the schemas whose meaning both sides agree on.
 */
export const suiteSchemas = (): Array<{ readonly name: string; readonly schema: unknown }> => {
  const require = createRequire(import.meta.url)
  const dir = join(require.resolve("json-schema-test-suite/package.json"), "..", "tests", "draft4")
  const out: Array<{ name: string; schema: unknown }> = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".json") && f !== "refRemote.json")) {
    const groups = JSON.parse(readFileSync(join(dir, file), "utf8")) as ReadonlyArray<SuiteGroup>
    for (const g of groups) {
      if (!g.tests.some((t) => t.valid)) continue
      if (JSON.stringify(g.schema).includes("http://")) continue
      const validate = validatorFor(g.schema)
      if (validate === null || !g.tests.every((t) => validate(t.data) === t.valid)) continue
      out.push({ name: `${file.replace(/\.json$/, "")}: ${g.description}`, schema: g.schema })
    }
  }
  return out
}
