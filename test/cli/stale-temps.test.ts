/**
 * A SIGKILL during the output pass leaves `<output>.tmp-<pid>` behind (a partial output). The next
 * run of the job removes those of processes that are gone, and never one of a live process.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("stale temporary outputs", () => {
  it("the next run removes partial outputs of dead processes and keeps a live one's", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 20)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: temps\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )
    const dead = spawnSync(process.execPath, ["-e", ""]).pid! // exited: its pid names no process now
    mkdirSync(join(dir, "out"))
    const stale = [join(dir, "out", `r.jsonl.tmp-${dead}`), join(dir, "out", `r.rejects.jsonl.tmp-${dead}`)]
    for (const p of stale) writeFileSync(p, "x".repeat(100_000))
    const live = join(dir, "out", `r.jsonl.tmp-${process.pid}`)
    writeFileSync(live, "being written")
    const run = spawnCli(["run", job], env)
    expect(await run.exited).toBe(0)
    for (const p of stale) expect(existsSync(p)).toBe(false)
    expect(existsSync(live)).toBe(true)
    expect(run.err()).toContain(`removed ${stale[0]} (100000 bytes), a partial output left by a process that is gone`)
  }, 60_000)
})
