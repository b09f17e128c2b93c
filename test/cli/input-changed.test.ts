/**
 * The input changed while a run goes on (replaced by an atomic rename, or appended to): the run
 * must not write verdicts beside the wrong rows, nor pay for the rest of a file it cannot write.
 * It stops when the change is seen (a stat a second), exits 8 naming the file, writes no output,
 * and keeps what was answered: the next invocation (a new run over the new file) asks only the rest.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl } from "../engine/run-helpers.ts"
import { untilDone } from "./ledger-probe.ts"
import { spawnCli } from "./spawn-cli.ts"
import { moderationJob } from "./moderation-job.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

/** Answers the ledger holds: every request paid for. */
const answersIn = (ledger: string): number => {
  const db = new Database(ledger, { readonly: true })
  try {
    return (db.prepare("SELECT count(*) AS n FROM answers").get() as { n: number }).n
  } finally {
    db.close()
  }
}

/** 400 records at 20 a second: 20 s of requests, were the run to go on to the end. */
const slowJob = (name: string) =>
  moderationJob(name, 400, `limits: { rpm: { svc3-guard: 1200 } }\nreport: { enabled: false }\n`)

describe("input changed during a run", () => {
  it("replaced mid-run: exit 8 within seconds, no output; the rerun asks only what was not answered and aligns every verdict", async () => {
    const { dir, input, job, ledger } = slowJob("changing")
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
    const paid = answersIn(ledger)
    expect(paid).toBeLessThan(200)

    const second = spawnCli(["run", job, "--rpm", "3000"], env)
    expect(await second.exited).toBe(0)
    expect(second.out()).toMatch(/finished: 401 done, 0 failed/)
    // Every answer the first run paid for is reused: only the rest (and the new record) are asked.
    expect(second.out()).toContain(`requests ${(401 - paid).toLocaleString("en-US")},`)
    const out = readJsonl(join(dir, "out", "r.jsonl"))
    expect(out.map((r) => r.moderation_verdict)).toEqual(
      out.map((r) => (/bomb/.test(String(r.text)) ? "harmful" : "safe"))
    )
  }, 90_000)

  it("appended to mid-run: exit 8 after far fewer requests than records", async () => {
    const { dir, input, job, ledger } = slowJob("growing")
    const first = spawnCli(["run", job], env)
    await untilDone(ledger, 30)
    appendFileSync(input, `${JSON.stringify({ id: "late", text: "A record written while the run went on." })}\n`)
    expect(await first.exited).toBe(8)
    expect(first.err()).toContain(`svc-batch: ${input} changed during the run (its content is not what this run read`)
    expect(existsSync(join(dir, "out", "r.jsonl"))).toBe(false)
    expect(answersIn(ledger)).toBeLessThan(200)
  }, 90_000)
})
