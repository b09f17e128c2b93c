/** Two invocations of one job at once: the second stops at once (exit 7) instead of paying again. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { lockJob, lockOwnerGone } from "../../src/cli/job-lock.ts"
import { tempDir } from "../engine/run-helpers.ts"
import { untilDone } from "./ledger-probe.ts"
import { spawnCli } from "./spawn-cli.ts"
import { moderationJob } from "./moderation-job.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("one invocation of a job at a time", () => {
  it("a second run while the first goes on is refused naming the process; after a SIGKILL the lock is taken over", async () => {
    const { job, ledger } = moderationJob(
      "locked",
      600,
      `limits: { rpm: { svc3-guard: 3000 } }\nreport: { enabled: false }\n`
    )
    const first = spawnCli(["run", job], env)
    await untilDone(ledger, 20)

    const second = spawnCli(["run", job], env)
    expect(await second.exited).toBe(7)
    expect(second.err()).toContain(`job locked is already running (process ${first.child.pid}, started `)
    expect(JSON.parse(readFileSync(`${ledger}.lock`, "utf8"))).toMatchObject({ pid: first.child.pid, host: hostname() })

    first.child.kill("SIGKILL")
    expect(await first.exited).toBe(-1)
    expect(existsSync(`${ledger}.lock`)).toBe(true) // left behind by the killed process
    const third = spawnCli(["run", job], env)
    expect(await third.exited).toBe(0)
    expect(third.out()).toContain("(resumed) finished: 600 done")
    expect(existsSync(`${ledger}.lock`)).toBe(false)
  }, 60_000)

  it("--wait waits for the running invocation to end, then resumes where it stopped", async () => {
    // The first goes slowly (600/min: 40 s for the corpus), the second, once it has the lock, fast.
    const { job, ledger } = moderationJob(
      "waiter",
      400,
      `limits: { rpm: { svc3-guard: 600 } }\nreport: { enabled: false }\n`
    )
    const first = spawnCli(["run", job], env)
    await untilDone(ledger, 10)
    const second = spawnCli(["run", job, "--wait", "--rpm", "svc3-guard=60000"], env)
    const t0 = Date.now()
    while (!second.err().includes("waiting for it to finish (--wait)") && Date.now() - t0 < 20_000)
      await new Promise((r) => setTimeout(r, 50))
    expect(second.err()).toContain(`job waiter is already running (process ${first.child.pid}`)
    await new Promise((r) => setTimeout(r, 1500))
    expect(second.child.exitCode).toBe(null) // still waiting
    first.child.kill("SIGINT")
    expect(await first.exited).toBe(130)
    expect(await second.exited).toBe(0)
    expect(second.out()).toContain("(resumed) finished: 400 done")
  }, 60_000)

  it("a signal while waiting for the lock ends the wait: exit 130, nothing started", async () => {
    const { job, ledger } = moderationJob(
      "waiter2",
      3000,
      `limits: { rpm: { svc3-guard: 600 } }\nreport: { enabled: false }\n`
    )
    const first = spawnCli(["run", job], env)
    await untilDone(ledger, 2)
    const second = spawnCli(["run", job, "--wait"], env)
    const t0 = Date.now()
    while (!second.err().includes("(--wait)") && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 50))
    second.child.kill("SIGTERM")
    expect(await second.exited).toBe(130)
    expect(second.out()).toContain("stopped while waiting for the running invocation of job waiter2; nothing was sent")
    expect(first.child.exitCode).toBe(null) // the first goes on, its lock intact
    expect(existsSync(`${ledger}.lock`)).toBe(true)
    first.child.kill("SIGKILL")
    await first.exited
  }, 60_000)

  const lockFile = (owner: object, ageMs: number) => {
    const ledger = join(tempDir(), "j.ledger.sqlite")
    writeFileSync(`${ledger}.lock`, JSON.stringify(owner))
    const t = new Date(Date.now() - ageMs)
    utimesSync(`${ledger}.lock`, t, t)
    return ledger
  }

  it.scoped("a lock from another host with a recent heartbeat is held", () =>
    Effect.gen(function* () {
      const ledger = lockFile({ pid: 1, host: "elsewhere", started: "2026-01-01T00:00:00Z" }, 5_000)
      const exit = yield* Effect.exit(lockJob("j", ledger))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("process 1 on elsewhere")
    })
  )

  it.scoped("a lock from another host whose heartbeat stopped over a minute ago is taken over", () =>
    Effect.gen(function* () {
      const ledger = lockFile({ pid: 1, host: "elsewhere", started: "2026-01-01T00:00:00Z" }, 90_000)
      yield* lockJob("j", ledger)
      expect(JSON.parse(readFileSync(`${ledger}.lock`, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() })
    })
  )

  it.scoped("a lock from this host whose process is gone is taken over, however recent its heartbeat", () =>
    Effect.gen(function* () {
      const ledger = lockFile({ pid: 2 ** 22 + 12345, host: hostname(), started: "2026-01-01T00:00:00Z" }, 0)
      yield* lockJob("j", ledger)
      expect(JSON.parse(readFileSync(`${ledger}.lock`, "utf8")).pid).toBe(process.pid)
    })
  )

  describe("lockOwnerGone (what status and runs ask of a run marked running)", () => {
    it("no lock: gone", () => {
      expect(lockOwnerGone(join(tempDir(), "j.ledger.sqlite"))).toBe("no process holds the job's lock")
    })
    it("a lock naming a process of this host that no longer exists: gone, naming it", () => {
      const ledger = lockFile({ pid: 2 ** 22 + 12345, host: hostname(), started: "2026-01-01T00:00:00Z" }, 0)
      expect(lockOwnerGone(ledger)).toBe(`its process ${2 ** 22 + 12345} is gone`)
    })
    it("a lock naming a live process of this host: not gone", () => {
      expect(
        lockOwnerGone(lockFile({ pid: process.pid, host: hostname(), started: "2026-01-01T00:00:00Z" }, 0))
      ).toBeUndefined()
    })
    it("a lock from another host: not decided by the lock (the 15-s heartbeat rule of status decides), however old", () => {
      expect(
        lockOwnerGone(lockFile({ pid: 2 ** 22 + 12345, host: "elsewhere", started: "2026-01-01T00:00:00Z" }, 90_000))
      ).toBeUndefined()
    })
  })
})
