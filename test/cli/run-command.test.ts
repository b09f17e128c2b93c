/**
 * `svc-batch run` as a real process against an emulator started here (SVC_BASE_URL): the crash
 * test (SIGKILL mid-run, then rerun), SIGINT (exit 130, resumable), exit codes, job validation.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { doneInLedger } from "./ledger-probe.ts"
import { spawnCli } from "./spawn-cli.ts"

const runCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined>) => spawnCli(["run", ...args], env)

const writeJob = (dir: string, input: string, extra = "") => {
  const path = join(dir, "job.yaml")
  writeFileSync(
    path,
    `name: crash-test\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: out/result.jsonl\nfields:\n  text: text\nlimits:\n  concurrency: 8\n  records: 16\n${extra}`
  )
  return path
}

describe("svc-batch run", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ latencyMs: 15, jitterMs: 5, onRequest: log.onRequest })
  })
  afterAll(() => emu.close())
  const env = () => ({ SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })

  it("crash: SIGKILL mid-run, rerun — every record exactly once, no request repeated beyond those in flight", async () => {
    log.entries.length = 0
    const dir = tempDir()
    const input = writeCorpus(dir, 600)
    const job = writeJob(dir, input)
    const ledger = join(dir, ".svc-batch", "crash-test.ledger.sqlite")

    const first = runCli([job], env())
    while (doneInLedger(ledger) < 150) await new Promise((r) => setTimeout(r, 20))
    first.child.kill("SIGKILL")
    expect(await first.exited).toBe(-1)
    // Requests in flight at the kill are still answered (and logged) by the emulator: let them land.
    await new Promise((r) => setTimeout(r, 250))
    const sentBeforeKill = log.entries.length
    const committed = doneInLedger(ledger)
    expect(committed).toBeLessThan(600)

    const second = runCli([job], env())
    expect(await second.exited).toBe(0)
    expect(second.out()).toContain("(resumed) finished: 600 done, 0 failed")

    const out = readJsonl(join(dir, "out", "result.jsonl"))
    expect(out.map((r) => r.id)).toEqual(Array.from({ length: 600 }, (_, i) => `r${i}`))
    for (const r of out) expect(r.moderation_verdict).toBe(Number(String(r.id).slice(1)) % 5 === 0 ? "harmful" : "safe")

    // Requests repeated after the kill: at most what was in flight or not yet committed then.
    const seen = new Map<string, number>()
    for (const e of log.entries) seen.set(e.bodyHash, (seen.get(e.bodyHash) ?? 0) + 1)
    const repeated = [...seen.values()].filter((n) => n > 1).length
    expect(seen.size).toBe(600)
    expect(repeated).toBeLessThanOrEqual(sentBeforeKill - committed)
    expect(repeated).toBeLessThanOrEqual(16 + 8) // records in progress + requests in flight
  }, 60_000)

  it("SIGINT: stops, exits 130 with how to resume; the rerun finishes", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 800)
    const job = writeJob(dir, input)
    const ledger = join(dir, ".svc-batch", "crash-test.ledger.sqlite")
    const first = runCli([job], env())
    while (doneInLedger(ledger) < 100) await new Promise((r) => setTimeout(r, 20))
    first.child.kill("SIGINT")
    expect(await first.exited).toBe(130)
    expect(first.out()).toMatch(/interrupted/)
    expect(first.out()).toMatch(/run the same command again to resume/)
    expect(existsSync(join(dir, "out", "result.jsonl"))).toBe(false) // no half-written output
    const second = runCli([job], env())
    expect(await second.exited).toBe(0)
    expect(readJsonl(join(dir, "out", "result.jsonl"))).toHaveLength(800)
  }, 60_000)

  it("a second SIGINT exits at once with 130, and the ledger stays usable", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 3000)
    const job = writeJob(dir, input, "  graceMs: 60000\n")
    const ledger = join(dir, ".svc-batch", "crash-test.ledger.sqlite")
    // Answers that take seconds: the graceful stop the first SIGINT starts is still waiting for the
    // requests in flight when the second arrives, however loaded the machine.
    const slow = await emulatorFor({ latencyMs: 3000 })
    try {
      const first = runCli([job], { SVC_BASE_URL: slow.url, SVC_API_KEY: KEY })
      while (doneInLedger(ledger) < 1) await new Promise((r) => setTimeout(r, 20))
      first.child.kill("SIGINT")
      await new Promise((r) => setTimeout(r, 30))
      const t0 = Date.now()
      first.child.kill("SIGINT")
      expect(await first.exited).toBe(130)
      expect(Date.now() - t0).toBeLessThan(2000)
      expect(first.err()).toContain("second SIGINT")
    } finally {
      await slow.close()
    }
    // The ledger the hard exit left is usable (a new run: the slow emulator's answers are its own).
    const second = runCli([job, "--new-run"], env())
    expect(await second.exited).toBe(0)
    expect(readJsonl(join(dir, "out", "result.jsonl"))).toHaveLength(3000)
  }, 90_000)

  it("exit 1 when a row is unreadable although every record read is done (0 means every row is in the output)", async () => {
    const dir = tempDir()
    const input = join(dir, "in.csv")
    writeFileSync(input, 'id,text\na1,"A calm note."\na2,"Broken",too,many\na3,"Another calm note."\n')
    const p = runCli([writeJob(dir, input)], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    expect(await p.exited).toBe(1)
    expect(p.out()).toMatch(/finished: 2 done, 0 failed, 1 unreadable/)
    const rejects = readJsonl(join(dir, "out", "result.rejects.jsonl"))
    expect(rejects).toEqual([expect.objectContaining({ line: 3, status: "unreadable" })])
  }, 60_000)

  it("exit 3 on 401, exit 1 with failed records, exit 2 on an invalid job", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 20)
    const job = writeJob(dir, input)
    const unauthorized = runCli([job], { SVC_BASE_URL: emu.url, SVC_API_KEY: "wrong-key-123" })
    expect(await unauthorized.exited).toBe(3)
    expect(unauthorized.err()).toContain("401")
    expect(unauthorized.out() + unauthorized.err()).not.toContain("wrong-key-123")

    const missing = join(dir, "missing-field.jsonl")
    writeFileSync(missing, '{"id":"a","text":"fine"}\n{"id":"b","other":"no text field"}\n')
    const partial = runCli([job, "--input", missing, "--output", join(dir, "partial.jsonl")], env())
    expect(await partial.exited).toBe(1)
    const rejects = readJsonl(join(dir, "partial.rejects.jsonl"))
    expect(rejects).toEqual([expect.objectContaining({ key: "b", stage: "moderate", status: "input" })])

    const bad = join(dir, "bad.yaml")
    writeFileSync(
      bad,
      "name: x\npipeline: moderation\ninput:\n  path: in.jsonl\noutput: {}\nfields:\n  text: text\nlimits:\n  concurency: 3\n"
    )
    const invalid = runCli([bad], env())
    expect(await invalid.exited).toBe(2)
    expect(invalid.err()).toContain(bad)
    expect(invalid.err()).toContain("output.path")
    expect(invalid.err()).toContain("limits.concurency: unknown field")
  }, 60_000)
})

describe("npm start's job", () => {
  it("runs the demo moderation job on the embedded emulator and says where its outputs are", async () => {
    const dir = tempDir()
    const p = runCli(
      [new URL("../../jobs/demo-moderation.yaml", import.meta.url).pathname, "--output", join(dir, "demo.csv")],
      { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
    )
    expect(await p.exited).toBe(0)
    expect(p.out()).toContain("EMULATOR (embedded")
    expect(p.out()).toMatch(/finished: 240 done, 0 failed, 0 unreadable/)
    expect(p.out()).toContain(`output  ${join(dir, "demo.csv")}`)
    const csv = readFileSync(join(dir, "demo.csv"), "utf8")
    expect(csv.split("\n")[0]).toBe("\uFEFFid,title,body,moderation_verdict,moderation_categories,moderation_raw")
    expect(csv).toContain("harmful,T9")
  }, 60_000)
})
