/** Job files: one Schema with its defaults, errors naming file and field, one resolver. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadJobFile } from "../../src/job/job-file.ts"
import { unusedRpmModels } from "../../src/job/job-checks.ts"
import { resolveJob } from "../../src/job/resolve-job.ts"

const jobFile = (yaml: string) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-job-"))
  writeFileSync(join(dir, "in.csv"), "id,text\n1,hello\n")
  const path = join(dir, "job.yaml")
  writeFileSync(path, yaml)
  return { dir, path }
}
const base = "name: j\ninput:\n  path: in.csv\noutput:\n  path: out/result.parquet\n"
const problem = (yaml: string) =>
  Either.match(loadJobFile(jobFile(yaml).path), { onLeft: (e) => e.detail, onRight: () => "valid" })

describe("job files", () => {
  it("fills in every default from the Schema", () => {
    const job = Either.getOrThrow(
      loadJobFile(jobFile(`${base}pipeline: moderation\nfields: { text: text }\n`).path)
    ).job
    expect(job.limits).toEqual({ rpm: {}, concurrency: 32, records: 256, maxAttempts: 5, graceMs: 10_000 })
    expect(job.cache).toBe("read-write")
  })

  it("accepts a stage list instead of a preset", () => {
    expect(problem(`${base}stages:\n  - moderate: { fields: [text] }\n`)).toBe("valid")
  })

  it("refuses both a preset and stages, and neither", () => {
    expect(problem(`${base}pipeline: moderation\nstages:\n  - moderate: { fields: [text] }\n`)).toBe(
      "stages: give either pipeline (a preset) or stages, not both"
    )
    expect(problem(base)).toBe("pipeline: required: a preset name, or a stages list instead")
  })

  it("refuses a stage entry with two keys, naming its index", () => {
    expect(problem(`${base}stages:\n  - { moderate: { fields: [a] }, translate: { fields: [a], to: en } }\n`)).toMatch(
      /^stages\.0: a stage is one key/
    )
  })

  it("names the allowed values of a union once, not one line per alternative", () => {
    expect(problem(`${base}pipeline: moderation\nfields: { text: text }\ncache: sometimes\n`)).toBe(
      `cache: Expected "read-write" | "refresh" | "off", actual "sometimes"`
    )
  })

  it("names an unknown field by its path", () => {
    expect(problem(`${base}pipeline: moderation\nfields: { text: text }\nlimits: { concurency: 3 }\n`)).toBe(
      "limits.concurency: unknown field"
    )
  })
})

describe("resolveJob", () => {
  it.effect("precedence: a flag over the job file, the job file over the defaults", () =>
    Effect.gen(function* () {
      const { path } = jobFile(
        `${base}pipeline: moderation\nfields: { text: text }\nlimits: { concurrency: 8 }\ncache: refresh\n`
      )
      const fromFile = yield* resolveJob(path)
      expect(fromFile.limits).toMatchObject({ concurrency: 8, records: 256, maxAttempts: 5 })
      expect(fromFile.cache).toBe("refresh")
      const withFlags = yield* resolveJob(path, { concurrency: 3, maxAttempts: 2, cache: "off" })
      expect(withFlags.limits).toMatchObject({ concurrency: 3, records: 256, maxAttempts: 2 })
      expect(withFlags.cache).toBe("off")
    })
  )

  it.effect("resolves the job's paths against its folder and derives rejects, ledger and formats", () =>
    Effect.gen(function* () {
      const { dir, path } = jobFile(`${base}pipeline: moderation\nfields: { text: text }\n`)
      const job = yield* resolveJob(path)
      expect(job.input).toEqual({
        path: join(dir, "in.csv"),
        format: "csv",
        encoding: "utf-8",
        id: undefined,
        unclosedQuote: undefined
      })
      expect(job.output).toEqual({ path: join(dir, "out/result.parquet"), format: "parquet" })
      expect(job.rejects).toBe(join(dir, "out/result.rejects.jsonl"))
      expect(job.state).toBe(join(dir, ".svc-batch/j.ledger.sqlite"))
    })
  )

  it.effect("keeps the default ledger beside the job file, whatever --output says", () =>
    Effect.gen(function* () {
      const { dir, path } = jobFile(`${base}pipeline: moderation\nfields: { text: text }\n`)
      const job = yield* resolveJob(path, { output: join(tmpdir(), "2024-06-01", "result.parquet") })
      expect(job.state).toBe(join(dir, ".svc-batch/j.ledger.sqlite"))
    })
  )

  it.effect("uses a ledger found at the former default place (beside the output) until it is moved", () =>
    Effect.gen(function* () {
      const { dir, path } = jobFile(`${base}pipeline: moderation\nfields: { text: text }\n`)
      mkdirSync(join(dir, "out"))
      writeFileSync(join(dir, "out/j.ledger.sqlite"), "")
      const job = yield* resolveJob(path)
      expect(job.state).toBe(join(dir, "out/j.ledger.sqlite"))
      expect(job.formerDefaultState).toEqual({
        path: join(dir, "out/j.ledger.sqlite"),
        moveTo: join(dir, ".svc-batch/j.ledger.sqlite")
      })
    })
  )

  it.effect("applies command-line overrides over the job and its defaults", () =>
    Effect.gen(function* () {
      const { path } = jobFile(`${base}pipeline: moderation\nfields: { text: text }\nlimits: { concurrency: 4 }\n`)
      const job = yield* resolveJob(path, { records: 9, rpm: { "*": 60 }, outputFormat: "jsonl", cache: "off" })
      expect(job.limits).toEqual({ rpm: { "*": 60 }, concurrency: 4, records: 9, maxAttempts: 5, graceMs: 10_000 })
      expect(job.output.format).toBe("jsonl")
      expect(job.cache).toBe("off")
    })
  )

  it.effect("refuses a command-line limit out of the job file's range, naming the flag", () =>
    Effect.gen(function* () {
      const { path } = jobFile(`${base}pipeline: moderation\nfields: { text: text }\n`)
      const error = yield* Effect.flip(resolveJob(path, { records: 0 }))
      expect(error._tag).toBe("OptionError")
      expect(error.message).toBe("--records: Expected a positive number, actual 0")
    })
  )

  it.effect("says which input file is missing", () =>
    Effect.gen(function* () {
      const { path } = jobFile(`${base.replace("in.csv", "nope.csv")}pipeline: moderation\nfields: { text: text }\n`)
      const error = yield* Effect.flip(resolveJob(path))
      expect(error.message).toMatch(/job\.yaml: input file not found: .*nope\.csv$/)
    })
  )

  it.effect("a missing input given with --input is blamed on the flag, not the job file", () =>
    Effect.gen(function* () {
      const { path } = jobFile(`${base}pipeline: moderation\nfields: { text: text }\n`)
      const error = yield* Effect.flip(resolveJob(path, { input: "/nonexistent/some.csv" }))
      expect(error._tag).toBe("OptionError")
      expect(error.message).toBe("--input: input file not found: /nonexistent/some.csv")
    })
  )
})

describe("unusedRpmModels", () => {
  it("names the rpm keys no stage uses, and the models used", () => {
    expect(unusedRpmModels({ "svc3-gaurd": 60, "*": 10 }, ["svc3-guard", "translate"])).toBe(
      `"svc3-gaurd": no stage of this job uses this model (used: svc3-guard, translate; "*" for every other)`
    )
  })

  it("accepts the models used and *, and checks nothing when the models are unknown", () => {
    expect(unusedRpmModels({ "svc3-guard": 60, "*": 10 }, ["svc3-guard"])).toBeUndefined()
    expect(unusedRpmModels({ anything: 60 }, undefined)).toBeUndefined()
  })
})
