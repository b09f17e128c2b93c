/**
 * Reports as a user meets them: `svc-batch run` writes them, a rerun after editing a few records
 * shows exactly those changes, `svc-batch report` rebuilds one without a request, thresholds exit 4.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const writeJob = (dir: string, input: string, extra = "") => {
  const path = join(dir, "job.yaml")
  writeFileSync(
    path,
    `name: nightly\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: out/result.csv\nfields:\n  text: text\n${extra}`
  )
  return path
}
const json = (dir: string) =>
  JSON.parse(readFileSync(join(dir, "out", "result.report.json"), "utf8")) as {
    runId: number
    service: string
    moderation: { harmful: number; changes?: { newlyFlagged: Array<{ key: string }>; noLongerFlagged: Array<string> } }
  }
const edit = (input: string, changes: Record<number, string>) => {
  const lines = readFileSync(input, "utf8").trim().split("\n")
  for (const [i, text] of Object.entries(changes)) lines[Number(i)] = JSON.stringify({ id: `r${i}`, text })
  writeFileSync(input, `${lines.join("\n")}\n`)
}

describe("reports from svc-batch run and svc-batch report", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ onRequest: log.onRequest })
  })
  afterAll(() => emu.close())
  const env = () => ({ SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })

  it("a rerun after editing three records reports exactly those changes", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 60)
    const job = writeJob(dir, input)
    const first = spawnCli(["run", job], env())
    expect(await first.exited).toBe(0)
    expect(first.out()).toContain("report  12 harmful, 48 safe, 0 unparsed")
    expect(first.out()).toContain(join(dir, "out", "result.report.html"))
    edit(input, {
      7: "Record 7: here is how to build a bomb.",
      21: "Share my credit card number with everyone.",
      30: "Record 30: a calm note."
    })
    const second = spawnCli(["run", job], env())
    expect(await second.exited).toBe(0)
    expect(second.out()).toContain("since run 1: 2 newly flagged, 1 no longer flagged")
    const report = json(dir)
    expect(report.service).toBe(emu.url)
    expect(report.moderation.changes!.newlyFlagged.map((f) => f.key).sort()).toEqual(["r21", "r7"])
    expect(report.moderation.changes!.noLongerFlagged).toEqual(["r30"])
    const md = readFileSync(join(dir, "out", "result.report.md"), "utf8")
    expect(md).toContain("2 newly flagged, 1 no longer flagged.")
    expect(readFileSync(join(dir, "out", "result.flagged.csv"), "utf8").split("\n")[0]).toBe(
      "\uFEFFid,verdict,categories,text"
    )
    for (const ext of ["report.html", "report.md", "report.json", "flagged.csv"])
      expect(readFileSync(join(dir, "out", `result.${ext}`), "utf8")).not.toContain(KEY)
  }, 60_000)

  it("svc-batch report rebuilds an earlier run's report without a request", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 20)
    const job = writeJob(dir, input)
    expect(await spawnCli(["run", job], env()).exited).toBe(0)
    const sent = log.entries.length
    const rebuilt = spawnCli(["report", job, "--run", "1"], env())
    expect(await rebuilt.exited).toBe(0)
    expect(rebuilt.out()).toContain("svc-batch report nightly: run 1 (finished)")
    expect(log.entries).toHaveLength(sent)
    expect(json(dir).runId).toBe(1)
    const missing = spawnCli(["report", job, "--run", "9"], env())
    expect(await missing.exited).toBe(2)
    expect(missing.err()).toContain("no run 9 of job nightly")
  }, 60_000)

  it("an older run's report goes beside the current one's (<stem>.run-N.report.*), never over it", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 20)
    const job = writeJob(dir, input)
    expect(await spawnCli(["run", job], env()).exited).toBe(0)
    expect(await spawnCli(["run", job], env()).exited).toBe(0)
    expect(json(dir).runId).toBe(2)
    const older = spawnCli(["report", job, "--run", "1"], env())
    expect(await older.exited).toBe(0)
    expect(older.out()).toContain(join(dir, "out", "result.run-1.report.html"))
    expect(json(dir).runId).toBe(2)
    const beside = JSON.parse(readFileSync(join(dir, "out", "result.run-1.report.json"), "utf8")) as { runId: number }
    expect(beside.runId).toBe(1)
  }, 60_000)

  it("exits 4 when a run exceeds the job's thresholds, naming them", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 30)
    const job = writeJob(dir, input, "report:\n  fail:\n    newlyFlagged: 5\n    categories: { T6: 0 }\n")
    expect(await spawnCli(["run", job], env()).exited).toBe(0)
    edit(input, { 1: "Send me your credit card number." })
    const second = spawnCli(["run", job], env())
    expect(await second.exited).toBe(4)
    expect(second.err()).toContain("threshold exceeded: 1 newly flagged records in T6 (threshold 0)")
    expect(second.err()).not.toContain("newly flagged records (threshold 5)")
  }, 60_000)
})
