/**
 * Translate stages through the bin, on the embedded emulator: a bad `protect` pattern and a clash
 * of warnings columns are refused alike by plan, check, run --dry-run and run; two translate
 * stages get a plan row each and both warnings columns in the report.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fnv1a } from "../../src/emulator/hash.ts"
import { tempDir, writeRecords } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

/** The emulator drops a token whose hash % 16 is 0: numbers it loses, one per stage. */
const dropped = Array.from({ length: 2000 }, (_, i) => String(i + 10)).filter((n) => fnv1a(n) % 16 === 0)

const twoStageJob = (stages: string) => {
  const dir = tempDir()
  const input = writeRecords(dir, [
    { id: "a", title: `今日は${dropped[0]}件の報告があります。`, body: `There were ${dropped[1]} reports today.` },
    { id: "b", title: "今日は良い天気です。", body: "It is a fine day." }
  ])
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: two-translations\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nstages:\n${stages}`
  )
  return { dir, job }
}

/** The one error line a refusal prints. */
const refusal = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("svc-batch: "))

const refusedByAll = async (job: string) => {
  const commands = [
    ["plan", job],
    ["check", job],
    ["run", job, "--dry-run"],
    ["run", job]
  ]
  const results = await Promise.all(
    commands.map(async (args) => {
      const p = spawnCli(args, env)
      return { args, code: await p.exited, lines: refusal(p.err()) }
    })
  )
  for (const r of results) {
    expect(r.code, r.args.join(" ")).toBe(2)
    expect(r.lines, r.args.join(" ")).toHaveLength(1)
  }
  expect(new Set(results.map((r) => r.lines[0])).size).toBe(1)
  return results[0]!.lines[0]!
}

describe("translate stages through the bin", () => {
  it("a protect pattern that is not a regular expression: exit 2 naming the file and the field, from all four", async () => {
    const { job } = twoStageJob(`  - translate: { fields: [title], to: en, protect: { patterns: ["JIRA-(\\\\d+"] } }\n`)
    const line = await refusedByAll(job)
    expect(line).toContain(`${job}: stages.0.translate.protect.patterns.0: not a valid regular expression`)
  }, 60_000)

  it("two translate stages with the default warnings column: exit 2 naming warningsColumn as the fix, from all four", async () => {
    const { job } = twoStageJob(
      `  - translate: { fields: [title], to: en }\n  - translate: { fields: [body], to: ja }\n`
    )
    const line = await refusedByAll(job)
    expect(line).toContain("stage 2 (translate) adds column translate_warnings, which stage 1 (translate) already adds")
    expect(line).toContain("set warningsColumn on stage 2 (translate) to another name")
  }, 60_000)

  it("two translate stages: a plan row each, and both warnings columns in the report", async () => {
    const { dir, job } = twoStageJob(
      `  - translate: { fields: [title], to: en }\n  - translate: { fields: [body], to: ja, warningsColumn: body_warnings }\n`
    )
    const plan = spawnCli(["plan", job, "--json"], env)
    expect(await plan.exited).toBe(0)
    const rows = (JSON.parse(plan.out()) as { rows: ReadonlyArray<{ stage: string; records: number; toSend: number }> })
      .rows
    expect(rows.map((r) => [r.stage, r.records, r.toSend])).toEqual([
      ["translate (stage 1)", 2, 2],
      ["translate (stage 2)", 2, 2]
    ])

    const run = spawnCli(["run", job], env)
    expect(await run.exited).toBe(0)
    const report = JSON.parse(readFileSync(join(dir, "out", "r.report.json"), "utf8")) as {
      translation: { warnings: ReadonlyArray<{ key: string; warning: string }> }
    }
    expect(report.translation.warnings).toEqual([
      { key: "a", warning: `translate_warnings: title: lost ${dropped[0]}` },
      { key: "a", warning: `body_warnings: body: lost ${dropped[1]}` }
    ])
  }, 60_000)
})
