/**
 * Unattended runs never mix emulated and real answers: a misconfigured environment is exit 2, a
 * job can require the real service, and answers are reused only from the origin that gave them.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const writeJob = (dir: string, input: string, extra = "") => {
  const path = join(dir, "job.yaml")
  writeFileSync(
    path,
    `name: origin\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: out/result.jsonl\nfields:\n  text: text\nreport: { enabled: false }\n${extra}`
  )
  return path
}
// The tests' own environment must not leak a URL or a key into these runs.
const clean = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("where answers come from", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ onRequest: log.onRequest })
  })
  afterAll(() => emu.close())

  for (const [name, env, message] of [
    ["an empty SVC_BASE_URL", { SVC_BASE_URL: "", SVC_API_KEY: KEY }, "SVC_BASE_URL is set but empty"],
    ["a key without a URL", { SVC_API_KEY: KEY }, "SVC_API_KEY is set but SVC_BASE_URL is not"],
    [
      "a URL that is not one",
      { SVC_BASE_URL: "api.example.com", SVC_API_KEY: KEY },
      "SVC_BASE_URL is not an http(s) URL"
    ]
  ] as const) {
    it(`refuses ${name} with exit 2 before any request`, async () => {
      const dir = tempDir()
      const run = spawnCli(["run", writeJob(dir, writeCorpus(dir, 5))], { ...clean, ...env })
      expect(await run.exited).toBe(2)
      expect(run.err()).toContain(message)
      expect(run.out() + run.err()).not.toContain(KEY)
    })
  }

  it("refuses to run a job with service: required on the emulator", async () => {
    const dir = tempDir()
    const run = spawnCli(["run", writeJob(dir, writeCorpus(dir, 5), "service: required\n")], clean)
    expect(await run.exited).toBe(2)
    expect(run.err()).toContain("requires the real service (service: required) but SVC_BASE_URL is not set")
  })

  it("does not serve the emulator's answers to a run against the service", async () => {
    const dir = tempDir()
    const job = writeJob(dir, writeCorpus(dir, 30))
    const emulated = spawnCli(["run", job], clean)
    expect(await emulated.exited).toBe(0)
    expect(emulated.out()).toContain("EMULATOR")
    log.entries.length = 0
    const real = spawnCli(["run", job], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    expect(await real.exited).toBe(0)
    expect(real.out()).toContain("requests 30, cache hits 0")
    expect(log.entries).toHaveLength(30)
    // And the service's answers are reused by the service's next run.
    const again = spawnCli(["run", job], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    expect(await again.exited).toBe(0)
    expect(again.out()).toContain("requests 0, cache hits 30")
  }, 60_000)
})
