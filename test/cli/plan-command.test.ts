/** `svc-batch plan`: the requests a run will send, counted before it, with nothing sent. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

interface PlanJson {
  readonly records: number
  readonly rows: ReadonlyArray<{
    stage: string
    model: string
    records: number
    assumed: number
    cached: number
    toSend: number
    tokens: number
    codePoints: number
  }>
  readonly minutes: number
}

describe("svc-batch plan", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ onRequest: log.onRequest })
  })
  afterAll(() => emu.close())
  const env = () => ({ SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })

  it("counts the requests the run then sends, sends nothing itself, and finds them all answered afterwards", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 300)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: planned\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nstages:\n  - moderate: { fields: [text] }\n  - translate: { fields: [text], to: ja, when: "moderation_verdict == 'safe'" }\nlimits: { rpm: { svc3-guard: 6000, translate: 3000 } }\nreport: { enabled: false }\n`
    )
    log.entries.length = 0
    const before = spawnCli(["plan", job, "--json"], env())
    expect(await before.exited).toBe(0)
    expect(log.entries).toHaveLength(0)
    const plan = JSON.parse(before.out()) as PlanJson
    expect(plan.records).toBe(300)
    const moderate = plan.rows.find((r) => r.stage === "moderate")!
    const translate = plan.rows.find((r) => r.stage === "translate")!
    expect(moderate).toMatchObject({ records: 300, cached: 0, toSend: 300 })
    expect(moderate.tokens).toBeGreaterThan(300 * 5)
    // Whether a record passes moderation is unknown before it is asked: an upper bound.
    expect(translate).toMatchObject({ records: 300, assumed: 300, toSend: 300 })
    expect(plan.minutes).toBeCloseTo(0.1, 5) // 300 translate requests at 3,000/min: the slowest model

    const run = spawnCli(["run", job], env())
    expect(await run.exited).toBe(0)
    const sent = log.entries.length
    expect(sent).toBe(300 + 240) // every 5th record is harmful and is not translated
    expect(sent).toBeLessThanOrEqual(moderate.toSend + translate.toSend)

    const after = spawnCli(["plan", job, "--json"], env())
    expect(await after.exited).toBe(0)
    expect(log.entries.length).toBe(sent)
    const again = JSON.parse(after.out()) as PlanJson
    expect(again.rows.map((r) => [r.stage, r.records, r.cached, r.toSend])).toEqual([
      ["moderate", 300, 300, 0],
      ["translate", 240, 240, 0]
    ])
  }, 60_000)

  it("takes --input like run: the plan is of that file", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 30)
    const other = writeCorpus(dir, 7, "other.jsonl")
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: planned-input\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nstages:\n  - moderate: { fields: [text] }\nreport: { enabled: false }\n`
    )
    const plan = spawnCli(["plan", job, "--input", other, "--json"], env())
    expect(await plan.exited).toBe(0)
    expect((JSON.parse(plan.out()) as PlanJson).records).toBe(7)
  }, 60_000)

  it("prints a table and the duration the slowest model dictates", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 50)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: p\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { rpm: { svc3-guard: 60 } }\n`
    )
    const plan = spawnCli(["plan", job], env())
    expect(await plan.exited).toBe(0)
    expect(plan.out()).toMatch(/^moderate\s+chat\s+svc3-guard\s+50\s+0\s+50\s+[\d,]+\s+-$/m)
    expect(plan.out()).toContain("svc3-guard: 50 requests to send at 60/min: 50 s")
    expect(plan.out()).toContain("nothing was sent")
  }, 30_000)
})
