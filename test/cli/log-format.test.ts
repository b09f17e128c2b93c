/** `--log-format json` / SVC_LOG_FORMAT=json: every log line on stderr is one JSON object, for collectors. */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined, SVC_LOG_FORMAT: undefined }

const job = () => {
  const dir = tempDir()
  const input = writeCorpus(dir, 300)
  const path = join(dir, "job.yaml")
  writeFileSync(
    path,
    `name: logged\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { rpm: { svc3-guard: 3000 } }\nreport: { enabled: false }\n`
  )
  return path
}

interface LogLine {
  readonly message: string
  readonly logLevel: string
  readonly timestamp: string
  readonly annotations: {
    readonly event?: string
    readonly job?: string
    readonly status?: string
    readonly counters?: { readonly done: number }
  }
}

const lines = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as LogLine)

describe("log format", () => {
  it("--log-format json: progress and the run's end as JSON lines with job, event and counters", async () => {
    const run = spawnCli(["run", job(), "--log-format", "json"], env)
    expect(await run.exited).toBe(0)
    const logs = lines(run.err())
    expect(logs.length).toBeGreaterThanOrEqual(2)
    for (const l of logs) expect(l.annotations.job).toBe("logged")
    expect(logs.some((l) => l.annotations.event === "progress")).toBe(true)
    expect(logs.at(-1)!.annotations).toMatchObject({ event: "run-end", status: "finished", counters: { done: 300 } })
    expect(run.out()).toContain("run 1 finished: 300 done")
  }, 30_000)

  it("SVC_LOG_FORMAT=json does the same; an unknown format is exit 2", async () => {
    const run = spawnCli(["run", job()], { ...env, SVC_LOG_FORMAT: "json" })
    expect(await run.exited).toBe(0)
    expect(lines(run.err()).at(-1)!.annotations.event).toBe("run-end")
    const bad = spawnCli(["run", job(), "--log-format", "xml"], env)
    expect(await bad.exited).toBe(2)
    expect(bad.err()).toContain('--log-format: expected text or json, got "xml"')
  }, 30_000)
})
