/**
 * `run --new-run` left unfinished: run again as it was typed, it would start yet another run, so
 * the hint names the run it left and the command line that resumes it (without `--new-run`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY } from "../helpers.ts"
import { spawnCli } from "./spawn-cli.ts"
import { moderationJob } from "./moderation-job.ts"

describe("run --new-run", () => {
  let emu: RunningEmulator
  beforeAll(async () => {
    emu = await emulatorFor({})
  })
  afterAll(() => emu.close())
  const env = () => ({ SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })

  it("names the run it leaves unfinished, and the hint's command line resumes the new run", async () => {
    const { job } = moderationJob("newrun", 60, "report: { enabled: false }\n")
    const first = spawnCli(["run", job, "--max-requests", "10"], env())
    expect(await first.exited).toBe(6)

    const fresh = spawnCli(["run", job, "--new-run", "--max-requests", "10"], env())
    expect(await fresh.exited).toBe(6)
    expect(fresh.out()).toContain("note    run 1 (interrupted) is left unfinished: --new-run starts another")
    const hint = fresh.out().match(/continue run 2 with the same command without --new-run: (svc-batch .*) \(ledger /)
    expect(hint?.[1]).toBe(`svc-batch run ${job} --max-requests 10`)

    // The hint's command, as typed: it resumes run 2, not a third run.
    const resumed = spawnCli(hint![1]!.split(" ").slice(1), env())
    expect(await resumed.exited).toBe(6)
    expect(resumed.out()).toMatch(/^run 2 \(resumed\) interrupted: /m)
    expect(resumed.out()).toContain("run the same command again to continue run 2 (ledger ")
  }, 60_000)
})
