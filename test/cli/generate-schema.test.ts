/**
 * A generate job's JSON Schema is compiled when the job is loaded: a draft 2020-12 schema (zod 4's
 * default `$schema`) runs, and a schema with a mistake is exit 2 from every command, naming the
 * schema file and where in it, before any request.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { compileJsonSchema } from "../../src/service/json-schema.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

const schema2020 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://example.com/summary",
  type: "object",
  properties: {
    summary: { type: "string", minLength: 1 },
    tags: { type: "array", prefixItems: [{ type: "string" }], items: false },
    day: { type: "string", format: "date" }
  },
  required: ["summary", "tags", "day"],
  additionalProperties: false
}

/** A generate job over `records` records, its schema in schema.json beside it. */
const generateJob = (schema: unknown, records = 6) => {
  const dir = tempDir()
  const input = writeCorpus(dir, records)
  writeFileSync(join(dir, "schema.json"), JSON.stringify(schema))
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: gen\nstages:\n  - generate: { prompt: "Summarise: {{text}}", response_format: { type: json_schema, schema: schema.json } }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\n`
  )
  return { dir, job }
}

describe("a generate job's JSON Schema", () => {
  it("draft 2020-12 with an $id: the run ends 0 and every answer conforms", async () => {
    const { dir, job } = generateJob(schema2020)
    const p = spawnCli(["run", job], env)
    expect(await p.exited, p.err()).toBe(0)
    const rows = readFileSync(join(dir, "out", "r.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { generate_json: unknown })
    expect(rows).toHaveLength(6)
    const validate = compileJsonSchema(schema2020).pipe((e) => (e._tag === "Right" ? e.right : undefined))!
    for (const row of rows) expect(validate(row.generate_json), JSON.stringify(row)).toBe(true)
  }, 60_000)

  it("with a typo: exit 2 from plan, check, run --dry-run and run, naming the file and the schema path", async () => {
    const { dir, job } = generateJob({
      ...schema2020,
      properties: { ...schema2020.properties, day: { type: "strin" } }
    })
    const results = await Promise.all(
      [
        ["plan", job],
        ["check", job],
        ["run", job, "--dry-run"],
        ["run", job]
      ].map(async (args) => {
        const p = spawnCli(args, env)
        return { args, code: await p.exited, err: p.err() }
      })
    )
    for (const r of results) {
      expect(r.code, r.args.join(" ")).toBe(2)
      expect(r.err, r.args.join(" ")).toContain(`${join(dir, "schema.json")}: #/properties/day/type`)
    }
  }, 60_000)
})
