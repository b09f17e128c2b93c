/**
 * The default ledger belongs to the job, not to the output: a nightly run pointed at a dated
 * output folder reuses the previous night's answers. Real processes against an emulator.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY } from "../helpers.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

describe("the default ledger", () => {
  let emu: RunningEmulator
  beforeAll(async () => {
    emu = await emulatorFor()
  })
  afterAll(() => emu.close())

  it("is beside the job file and shared by runs with different --output: the second sends no request", async () => {
    const dir = tempDir()
    const job = join(dir, "nightly.yaml")
    writeFileSync(
      job,
      `name: nightly\npipeline: moderation\ninput:\n  path: ${writeCorpus(dir, 25)}\n  id: id\noutput:\n  path: out/result.jsonl\nfields:\n  text: text\nreport: { enabled: false }\n`
    )
    const env = { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY }
    const monday = spawnCli(["run", job, "--output", join(dir, "2024-06-03", "result.jsonl")], env)
    expect(await monday.exited).toBe(0)
    expect(monday.out()).toContain("requests 25, cache hits 0")
    const ledger = join(dir, ".svc-batch", "nightly.ledger.sqlite")
    expect(monday.out()).toContain(`ledger  ${ledger}`)
    expect(existsSync(ledger)).toBe(true)
    const tuesday = spawnCli(["run", job, "--output", join(dir, "2024-06-04", "result.jsonl")], env)
    expect(await tuesday.exited).toBe(0)
    expect(tuesday.out()).toContain("requests 0, cache hits 25")
  })
})
