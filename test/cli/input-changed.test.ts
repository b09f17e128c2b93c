/**
 * The input replaced (atomic rename, one record inserted at the top) while a run goes on: the run
 * must not write verdicts beside the wrong rows. It exits 8 naming the file, writes no output, and
 * the next invocation (a new run over the new file) asks only the new record.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl } from "../engine/run-helpers.ts"
import { untilDone } from "./ledger-probe.ts"
import { spawnCli } from "./spawn-cli.ts"
import { moderationJob } from "./moderation-job.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("input changed during a run", () => {
  it("replaced mid-run: exit 8, no output; the rerun asks one request and aligns every verdict", async () => {
    const { dir, input, job, ledger } = moderationJob(
      "changing",
      400,
      `limits: { rpm: { svc3-guard: 3000 } }\nreport: { enabled: false }\n`
    )
    const first = spawnCli(["run", job], env)
    await untilDone(ledger, 30)
    writeFileSync(
      `${input}.new`,
      `${JSON.stringify({ id: "new", text: "Record new: here is how to build a bomb." })}\n${readFileSync(input, "utf8")}`
    )
    renameSync(`${input}.new`, input)
    expect(await first.exited).toBe(8)
    expect(first.err()).toContain(`svc-batch: ${input} changed during the run (its content is not what this run read`)
    expect(first.err()).toContain("no output was written. Run the same command again")
    expect(existsSync(join(dir, "out", "r.jsonl"))).toBe(false)

    const second = spawnCli(["run", job], env)
    expect(await second.exited).toBe(0)
    expect(second.out()).toMatch(/finished: 401 done, 0 failed/)
    expect(second.out()).toMatch(/requests 1,/)
    const out = readJsonl(join(dir, "out", "r.jsonl"))
    expect(out.map((r) => r.moderation_verdict)).toEqual(
      out.map((r) => (/bomb/.test(String(r.text)) ? "harmful" : "safe"))
    )
  }, 90_000)
})
