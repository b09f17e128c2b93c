/**
 * `gc` holds the job's lock, as run and retry do. A run holds it from before its run row exists
 * (it reads and fingerprints the input first): a gc in that window deleted the answers the run
 * was about to reuse, and the run paid for them again.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Scope } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { lockJob } from "../../src/cli/job-lock.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

/** A job run three times, keeping three runs' records (gc --keep-runs 2 collects the first's). */
const ranTwice = async (name: string) => {
  const dir = tempDir()
  const input = writeCorpus(dir, 30)
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: ${name}\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\nretention: { runs: 3 }\n`
  )
  for (let i = 0; i < 3; i++) expect(await spawnCli(["run", job], env).exited).toBe(0)
  return { job, ledger: join(dir, ".svc-batch", `${name}.ledger.sqlite`) }
}

const rows = (ledger: string) => {
  const db = new Database(ledger, { readonly: true })
  try {
    const n = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
    return { records: n("records"), answers: n("answers") }
  } finally {
    db.close()
  }
}

/** Holds the job's lock as a run does between taking it and starting its run row (this process owns it). */
const holdLock = async (name: string, ledger: string) => {
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Scope.extend(lockJob(name, ledger), scope))
  return () => Effect.runPromise(Scope.close(scope, Exit.void))
}

describe("gc and the job's lock", () => {
  it("gc while a run holds the lock: exit 7 with the usual message, nothing deleted; with --wait, a signal while waiting exits 130", async () => {
    const { job, ledger } = await ranTwice("gclocked")
    const before = rows(ledger)
    const release = await holdLock("gclocked", ledger)
    try {
      const gc = spawnCli(["gc", job, "--keep-runs", "2", "--answer-days", "0"], env)
      expect(await gc.exited).toBe(7)
      expect(gc.err()).toContain(`svc-batch: job gclocked is already running (process ${process.pid}, started `)
      expect(gc.out()).toBe("")
      expect(rows(ledger)).toEqual(before)
      // Waiting for it (--wait), then stopped by a signal: 130, still nothing deleted.
      const waiting = spawnCli(["gc", job, "--keep-runs", "2", "--answer-days", "0", "--wait"], env)
      while (!waiting.err().includes("waiting for it to finish (--wait)")) await new Promise((r) => setTimeout(r, 50))
      waiting.child.kill("SIGINT")
      expect(await waiting.exited).toBe(130)
      expect(rows(ledger)).toEqual(before)
    } finally {
      await release()
    }
    // Once the lock is free, the same gc goes ahead.
    const gc = spawnCli(["gc", job, "--keep-runs", "2", "--json"], env)
    expect(await gc.exited).toBe(0)
    expect(JSON.parse(gc.out())).toMatchObject({ runs: [1], records: 30 })
  }, 60_000)

  it("gc --wait waits for the run holding the lock, then collects", async () => {
    const { job, ledger } = await ranTwice("gcwait")
    const release = await holdLock("gcwait", ledger)
    let released = false
    try {
      const gc = spawnCli(["gc", job, "--keep-runs", "2", "--json", "--wait"], env)
      while (!gc.err().includes("waiting for it to finish (--wait)")) {
        expect(gc.child.exitCode).toBe(null)
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(rows(ledger).records).toBe(90)
      await release()
      released = true
      expect(await gc.exited).toBe(0)
      expect(JSON.parse(gc.out())).toMatchObject({ runs: [1], records: 30 })
      expect(rows(ledger).records).toBe(60)
    } finally {
      if (!released) await release()
    }
  }, 60_000)
})
