/** A job's pipeline: a preset with its field mapping, or listed stages with typed options. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipelineForJob } from "../../pipelines/index.ts"
import { loadJobFile } from "../../src/job/job-file.ts"

const pipelineOf = (yaml: string) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-pipe-"))
  const path = join(dir, "job.yaml")
  writeFileSync(path, `name: j\ninput:\n  path: in.csv\noutput:\n  path: out.csv\n${yaml}`)
  const { job } = Either.getOrThrow(loadJobFile(path))
  return Effect.runSync(Effect.either(pipelineForJob(path, job)))
}
const error = (yaml: string) => Either.match(pipelineOf(yaml), { onLeft: (e) => e.detail, onRight: () => "built" })

describe("pipelineForJob", () => {
  it("builds listed stages in order with their conditions", () => {
    const p = Either.getOrThrow(
      pipelineOf(
        "stages:\n  - moderate: { fields: [title, body] }\n  - translate: { fields: body, to: en, when: \"moderation_verdict == 'safe'\" }\n"
      )
    )
    expect(p.stages.map((s) => s.name)).toEqual(["moderate", "translate"])
    expect(p.columns.map((c) => c.name)).toEqual([
      "moderation_verdict",
      "moderation_categories",
      "moderation_raw",
      "body_en",
      "translate_warnings"
    ])
    expect(p.stages[1]!.when?.test({ moderation_verdict: "safe" })).toBe(true)
    expect(p.stages[1]!.when?.test({ moderation_verdict: "harmful" })).toBe(false)
  })

  it("builds the translation preset: moderate, then translate what passed", () => {
    const p = Either.getOrThrow(pipelineOf("pipeline: translation\nfields: { text: [title, body] }\n"))
    expect(p.stages.map((s) => [s.name, s.when?.source])).toEqual([
      ["moderate", undefined],
      ["translate", "moderation_verdict == 'safe'"]
    ])
  })

  it("names an unknown stage and lists the known ones", () => {
    expect(error("stages:\n  - summarise: { fields: [a] }\n")).toBe(
      'stages.0: unknown stage "summarise" (known: moderate, embed, rerank, generate, translate)'
    )
  })

  it("names an unknown or invalid stage option by its path", () => {
    expect(error("stages:\n  - translate: { fields: [a], to: en, tone: formal }\n")).toBe(
      "stages.0.translate.tone: unknown field"
    )
    expect(error("stages:\n  - moderate: { fields: [a] }\n  - translate: { fields: [a], to: fr }\n")).toMatch(
      /^stages\.1\.translate\.to: /
    )
  })

  it("names a condition that does not parse, with its position", () => {
    expect(error('stages:\n  - translate: { fields: [a], to: en, when: "x ==" }\n')).toBe(
      'stages.0.translate.when: when "x ==": expected a value before the end at position 4'
    )
  })

  it("refuses a condition on a column that a later stage adds", () => {
    expect(
      error(
        "stages:\n  - translate: { fields: [a], to: en, when: \"moderation_verdict == 'safe'\" }\n  - moderate: { fields: [a] }\n"
      )
    ).toMatch(/stage 1 \(translate\) when tests moderation_verdict, which stage 2 \(moderate\) adds after it/)
  })

  it("says which preset input is not mapped", () => {
    expect(error("pipeline: moderation\nfields: {}\n")).toMatch(/^fields\.text is required by pipeline moderation/)
  })
})
