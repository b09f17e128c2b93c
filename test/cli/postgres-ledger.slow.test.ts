/**
 * `--ledger postgres://…` through the real command, on the embedded emulator and a throwaway
 * PostgreSQL: a run stores its answers on the server; the same job from another directory (another
 * machine: no local state) asks nothing; status and runs read the server; the password is never
 * printed. And a server that is not there: exit 10, one line naming its host, nothing lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Redacted } from "effect"
import { emptyStats } from "../../src/engine/run-stats.ts"
import { makePostgresLedger } from "../../src/ledger/postgres-ledger.ts"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { startPostgres, type ThrowawayPostgres } from "../support/postgres.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined, SVC_BATCH_LEDGER_URL: undefined }

let server: ThrowawayPostgres
beforeAll(async () => {
  server = await startPostgres()
}, 60_000)
afterAll(() => server?.stop())

const jobIn = (dir: string) => {
  const input = writeCorpus(dir, 40)
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: shared\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\n`
  )
  return job
}

describe("a job on a PostgreSQL ledger", () => {
  it("runs with --ledger, reruns elsewhere with 0 requests (answers from the server), status and runs read it", async () => {
    const url = await server.database("e2e")
    const shown = url.replace(server.password, "***")
    const first = tempDir()
    const job = jobIn(first)
    const run = spawnCli(["run", job, "--ledger", url], env)
    expect(await run.exited).toBe(0)
    expect(run.out()).toContain("run 1 finished: 40 done, 0 failed")
    expect(run.out()).toContain(`ledger  ${shown}`)
    expect(readJsonl(join(first, "out", "r.jsonl"))).toHaveLength(40)
    // No SQLite ledger was made: the lock file is all this machine keeps.
    expect(existsSync(join(first, ".svc-batch", "shared.ledger.sqlite"))).toBe(false)

    // Another machine: the same job in another directory, the URL from the environment.
    const second = tempDir()
    mkdirSync(second, { recursive: true })
    cpSync(join(first, "in.jsonl"), join(second, "in.jsonl"))
    const again = jobIn(second)
    const rerun = spawnCli(["run", again], { ...env, SVC_BATCH_LEDGER_URL: url })
    expect(await rerun.exited).toBe(0)
    expect(rerun.out()).toContain("run 2 finished: 40 done, 0 failed")
    expect(rerun.out()).toMatch(/requests 0, cache hits 40/)
    expect(readJsonl(join(second, "out", "r.jsonl"))).toEqual(readJsonl(join(first, "out", "r.jsonl")))

    const status = spawnCli(["status", job, "--ledger", url, "--json"], env)
    const runs = spawnCli(["runs", job, "--ledger", url, "--json"], env)
    expect(await Promise.all([status.exited, runs.exited])).toEqual([0, 0])
    expect(JSON.parse(status.out())).toMatchObject({ id: 2, state: "finished", done: 40, requests: 0 })
    const listed = runs
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(listed.map((r: { id: number; requests: number }) => [r.id, r.requests])).toEqual([
      [2, 0],
      [1, 40]
    ])
    for (const p of [run, rerun, status, runs]) expect(p.out() + p.err()).not.toContain(server.password)
  }, 120_000)

  it("the same job on two machines at once: the second is refused (exit 7) naming the first, or waits with --wait", async () => {
    const url = await server.database("twice")
    const first = tempDir()
    const job = jobIn(first)
    // Slow enough to be running while the other machine starts: one record at a time, 250 ms each.
    writeFileSync(
      job,
      `${readFileSync(job, "utf8")}limits: { concurrency: 1, records: 1 }\nemulator: { latencyMs: 250 }\n`
    )
    const second = tempDir()
    cpSync(join(first, "in.jsonl"), join(second, "in.jsonl"))
    const other = jobIn(second)
    const running = spawnCli(["run", job, "--ledger", url], env)
    // Under way: its progress line says so (stderr).
    while (!/processing/.test(running.err())) await new Promise((r) => setTimeout(r, 20))
    // Another machine: no lock file of the first's on its disk, only the database they share.
    const refused = spawnCli(["run", other, "--ledger", url], env)
    expect(await refused.exited).toBe(7)
    expect(refused.err()).toContain(`job shared is already running (svc-batch process ${running.child.pid} on`)
    expect(refused.err()).toContain("PostgreSQL advisory lock")
    expect(refused.err()).not.toContain(server.password)
    const waiting = spawnCli(["run", other, "--ledger", url, "--wait"], env)
    expect(await running.exited).toBe(0)
    expect(await waiting.exited).toBe(0)
    expect(waiting.err()).toContain("waiting for it to finish (--wait)")
    expect(waiting.out()).toMatch(/requests 0, cache hits 40/)
  }, 120_000)

  it("status on another machine: a run going on elsewhere is running while it saves statistics, not taken for dead for want of a lock here", async () => {
    const url = await server.database("elsewhere")
    const job = jobIn(tempDir())
    // The run of another machine, as its ledger writes it: running, statistics just saved.
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const ledger = yield* makePostgresLedger({ url: Redacted.make(url) })
          const id = yield* ledger.startRun("shared", "fp")
          yield* ledger.setRun(id, "running", { ...emptyStats, total: 40, done: 10 })
        })
      )
    )
    const status = spawnCli(["status", job, "--ledger", url, "--json"], env)
    expect(await status.exited).toBe(0)
    expect(JSON.parse(status.out())).toMatchObject({ id: 1, state: "running", done: 10, staleCause: null })
  }, 60_000)

  it("a server that is not there: exit 10, one line naming its host, no password, nothing sent or written", async () => {
    const dir = tempDir()
    const job = jobIn(dir)
    const url = "postgres://svc:hunter2-secret@127.0.0.1:1/ledger"
    const run = spawnCli(["run", job, "--ledger", url], env)
    expect(await run.exited).toBe(10)
    const said = run.err().trim()
    expect(said.split("\n")).toHaveLength(1)
    expect(said).toContain("cannot reach PostgreSQL at 127.0.0.1:1")
    expect(run.out() + run.err()).not.toContain("hunter2-secret")
    expect(existsSync(join(dir, "out", "r.jsonl"))).toBe(false)
    const status = spawnCli(["status", job], { ...env, SVC_BATCH_LEDGER_URL: url })
    expect(await status.exited).toBe(10)
    expect(status.out() + status.err()).not.toContain("hunter2-secret")
  }, 60_000)
})
