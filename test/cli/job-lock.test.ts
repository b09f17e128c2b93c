/** Two invocations of one job at once: the second stops at once (exit 2) instead of paying again. */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { doneInLedger } from "./ledger-probe.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("one invocation of a job at a time", () => {
  it("a second run while the first goes on is refused naming the process; after a SIGKILL the lock is taken over", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 600)
    const job = join(dir, "job.yaml")
    writeFileSync(job, `name: locked\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { rpm: { svc3-guard: 3000 } }\nreport: { enabled: false }\n`)
    const ledger = join(dir, ".svc-batch", "locked.ledger.sqlite")
    const first = spawnCli(["run", job], env)
    while (doneInLedger(ledger) < 20) await new Promise((r) => setTimeout(r, 50))

    const second = spawnCli(["run", job], env)
    expect(await second.exited).toBe(2)
    expect(second.err()).toContain(`job locked is already running (process ${first.child.pid})`)

    first.child.kill("SIGKILL")
    expect(await first.exited).toBe(-1)
    expect(existsSync(`${ledger}.lock`)).toBe(true) // left behind by the killed process
    const third = spawnCli(["run", job], env)
    expect(await third.exited).toBe(0)
    expect(third.out()).toContain("(resumed) finished: 600 done")
    expect(existsSync(`${ledger}.lock`)).toBe(false)
  }, 60_000)
})
