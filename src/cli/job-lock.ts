/**
 * One invocation of a job at a time: a lock file beside the ledger (`<ledger>.lock`, holding the
 * pid), created exclusively. A second `svc-batch run` (or `retry`) of the same job while the first
 * goes on would ask the same records again and pay twice; it stops at once with exit 2 instead. A
 * lock left by a process that is gone (SIGKILL, a crash) is taken over.
 */
import { Effect } from "effect"
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs"
import { dirname } from "node:path"
import { ConfigError } from "./endpoint.ts"

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const tryCreate = (path: string): boolean => {
  try {
    const fd = openSync(path, "wx")
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  }
}

/** Holds the job's lock for the scope; fails naming the other process when it is taken. */
export const lockJob = (job: string, ledger: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const path = `${ledger}.lock`
      mkdirSync(dirname(path), { recursive: true })
      for (let attempt = 0; attempt < 2; attempt++) {
        if (tryCreate(path)) return Effect.succeed(path)
        const holder = Number(readFileSync(path, "utf8").trim())
        if (Number.isInteger(holder) && holder > 0 && alive(holder) && holder !== process.pid) {
          return Effect.fail(
            new ConfigError({ detail: `job ${job} is already running (process ${holder}); wait for it, or watch it with svc-batch status (lock ${path})` })
          )
        }
        rmSync(path, { force: true }) // left by a process that is gone
      }
      return Effect.fail(new ConfigError({ detail: `cannot take the lock ${path}` }))
    }),
    (path) => Effect.sync(() => rmSync(path, { force: true }))
  )
