/**
 * Signals through npm (`npm run svc-batch -- run …`, `npm start`): a SIGTERM or SIGINT sent to npm
 * alone (timeout, systemd, docker stop, `kill -INT <npm pid>`) is relayed by npm to the tool, which
 * the scripts `exec`, and stops the run as on SIGTERM/SIGINT, leaving it interrupted and resumable
 * instead of going on spending in the background; one sent to the whole process group arrives
 * twice (directly and relayed) and is one stop.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { doneInLedger } from "./ledger-probe.ts"

const root = new URL("../..", import.meta.url).pathname

const runStatus = (ledger: string): string | undefined => {
  if (!existsSync(ledger)) return undefined
  const db = new Database(ledger, { readonly: true })
  try {
    return (db.prepare("SELECT status FROM runs ORDER BY id DESC LIMIT 1").get() as { status: string } | undefined)
      ?.status
  } finally {
    db.close()
  }
}

/**
 * `npm run svc-batch -- run <job>` over 1,500 records, detached (npm leads a new process group, as
 * a shell's foreground job does), its output collected; `extra` is appended to the job file.
 */
const runUnderNpm = (name: string, extra = "") => {
  const dir = tempDir()
  const input = writeCorpus(dir, 1500)
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: ${name}\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { rpm: { svc3-guard: 3000 } }\n${extra}`
  )
  const env = { ...process.env }
  delete env.SVC_BASE_URL
  delete env.SVC_API_KEY
  const npm = spawn("npm", ["run", "--silent", "svc-batch", "--", "run", job], {
    cwd: root,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  const output = { out: "", err: "" }
  npm.stdout.on("data", (d) => (output.out += d))
  npm.stderr.on("data", (d) => (output.err += d))
  return { npm, output, ledger: join(dir, ".svc-batch", `${name}.ledger.sqlite`) }
}

describe("signals through npm", () => {
  it("SIGTERM to the npm process stops the run: interrupted, resumable, nothing sent afterwards, npm exits 130 after the tool", async () => {
    const { npm, ledger } = runUnderNpm("npmjob")
    while (doneInLedger(ledger) < 50) await new Promise((r) => setTimeout(r, 100))
    const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)))
    process.kill(npm.pid!, "SIGTERM")
    const t0 = Date.now()
    while (runStatus(ledger) === "running" && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 200))
    expect(runStatus(ledger)).toBe("interrupted")
    const done = doneInLedger(ledger)
    expect(done).toBeLessThan(1500)
    await new Promise((r) => setTimeout(r, 1500))
    expect(doneInLedger(ledger)).toBe(done) // nothing more after the stop
    expect(await exited).toBe(130) // npm relayed the signal, waited for the tool and took its code
  }, 60_000)

  it("SIGINT to the npm process alone stops the run: interrupted, resumable, npm exits 130 after the tool", async () => {
    const { npm, output, ledger } = runUnderNpm("npmint1")
    // npm waits for the tool and exits with its code.
    const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)))
    while (doneInLedger(ledger) < 50) await new Promise((r) => setTimeout(r, 100))
    process.kill(npm.pid!, "SIGINT")
    const t0 = Date.now()
    while (runStatus(ledger) === "running" && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 200))
    expect(runStatus(ledger)).toBe("interrupted")
    expect(await exited).toBe(130)
    expect(doneInLedger(ledger)).toBeLessThan(1500)
    expect(output.err).toContain("SIGINT: stopping")
    expect(output.out).toMatch(/run 1 interrupted: \d+ done, 0 failed/)
    expect(output.out).toContain(`interrupted: run the same command again to resume run 1 (ledger ${ledger})`)
  }, 60_000)

  it("SIGTERM to npm's whole process group (timeout, systemd): one graceful stop, the summary and the resume hint, not a second-signal exit", async () => {
    // Answers take 2 s: the stop outlasts npm's death, which the tool notices within half a second.
    const { npm, output, ledger } = runUnderNpm("npmgrp", "emulator: { latencyMs: 2000 }\n")
    // The tool gets the signal twice (directly, and relayed by npm); the pipes close when it has exited.
    const closed = new Promise<void>((resolve) => npm.on("close", () => resolve()))
    while (doneInLedger(ledger) < 20) await new Promise((r) => setTimeout(r, 100))
    process.kill(-npm.pid!, "SIGTERM")
    await closed
    expect(output.err).toContain("SIGTERM: stopping")
    expect(output.err).not.toContain("second SIGTERM")
    expect(output.out).toMatch(/run 1 interrupted: \d+ done, 0 failed/)
    expect(output.out).toContain(`interrupted: run the same command again to resume run 1 (ledger ${ledger})`)
    expect(runStatus(ledger)).toBe("interrupted")
  }, 60_000)

  it("Ctrl-C under npm (SIGINT to the whole process group): exit 130, the summary and the resume hint", async () => {
    const { npm, output, ledger } = runUnderNpm("npmint")
    // npm waits for the tool, then ends itself with the same signal: a shell reports 128 + 2 = 130.
    const exited = new Promise<number | null>((resolve) =>
      npm.on("exit", (code, signal) => resolve(code ?? (signal === "SIGINT" ? 130 : null)))
    )
    while (doneInLedger(ledger) < 50) await new Promise((r) => setTimeout(r, 100))
    process.kill(-npm.pid!, "SIGINT")
    expect(await exited).toBe(130)
    expect(output.out).toMatch(/run 1 interrupted: \d+ done, 0 failed/)
    expect(output.out).toContain(`interrupted: run the same command again to resume run 1 (ledger ${ledger})`)
    expect(output.err).toContain("SIGINT: stopping")
    expect(output.err).not.toContain("\u001b[?25l") // the cursor is never hidden, so no exit path leaves it hidden
    expect(runStatus(ledger)).toBe("interrupted")
  }, 60_000)
})
