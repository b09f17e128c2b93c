/**
 * Progress of `svc-batch run` off a terminal (cron, CI): log lines that name the phase, governed
 * by --log-level; no cache figures when the cache is off. Real processes against an emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY } from "../helpers.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const writeJob = (dir: string, records = 4) => {
  const path = join(dir, "job.yaml")
  writeFileSync(
    path,
    `name: progress\npipeline: moderation\ninput:\n  path: ${writeCorpus(dir, 24)}\n  id: id\noutput:\n  path: out/result.jsonl\nfields:\n  text: text\nreport: { enabled: false }\nlimits: { records: ${records}, concurrency: 4 }\n`
  )
  return path
}

describe("svc-batch run progress off a terminal", () => {
  let emu: RunningEmulator
  beforeAll(async () => {
    emu = await emulatorFor({ latencyMs: 250 })
  })
  afterAll(() => emu.close())
  const env = () => ({ SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })

  it("logs a timestamped line naming the phase", async () => {
    const p = spawnCli(["run", writeJob(tempDir())], env())
    expect(await p.exited).toBe(0)
    expect(p.err()).toMatch(/^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] processing · \d+\/24/m)
  })

  it("--log-level warning keeps it quiet (through a run longer than the 5 s between lines)", async () => {
    // One record at a time, 250 ms each: about 6 s.
    const p = spawnCli(["run", writeJob(tempDir(), 1), "--log-level", "warning"], env())
    expect(await p.exited).toBe(0)
    expect(p.err()).not.toMatch(/^\[\d{4}-/m)
    expect(p.out()).toContain("finished: 24 done")
  })

  it("--cache off: no cache hits in the summary", async () => {
    const p = spawnCli(["run", writeJob(tempDir()), "--cache", "off"], env())
    expect(await p.exited).toBe(0)
    expect(p.out()).toContain("requests 24, retries 0")
    expect(p.out() + p.err()).not.toContain("cache hits")
  })
})
