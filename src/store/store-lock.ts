/**
 * One writer of a store file at a time: `<store>.lock` (the job lock's mechanism, io/lock-file.ts),
 * held while a run writes the store (from its start when it writes as records finish). The job's
 * lock does not cover this: two jobs (each its own ledger and lock) may keep their tables in one
 * store file, and one job may run with two ledgers (`--state`). A second writer waits for the first, up to STORE_WAIT_SECONDS, then
 * gives up with exit 7 (its answers are in its ledger: the same command later only writes).
 */
import { Data, Duration, Effect, Schedule } from "effect"
import { keepLockAlive, takeLock } from "../io/lock-file.ts"
import { ExitCode } from "../exit-code.ts"

/** How long a writer waits for another process writing the same store. */
export const STORE_WAIT_SECONDS = 120

export class StoreBusy extends Data.TaggedError("StoreBusy")<{
  readonly path: string
  readonly owner: string
  readonly lock: string
  readonly waited: number
}> {
  /** Exit 7 when it ends a command: another invocation holds it; nothing was done. */
  get exitCode() {
    return ExitCode.busy
  }
  override get message() {
    return `vector store ${this.path} is still being written by ${this.owner} after ${this.waited} s of waiting (lock ${this.lock}); run the same command again once it is done (the answers are reused)`
  }
}

/**
 * Holds the store's lock for the scope (with its heartbeat), waiting for another writer to finish
 * (`waitSeconds`: tests; 0: no wait, StoreBusy at once if another process holds it).
 */
export const lockStore = (path: string, waitSeconds = STORE_WAIT_SECONDS) =>
  Effect.gen(function* () {
    const lockPath = `${path}.lock`
    const once = takeLock(lockPath)
    const lock = yield* Effect.catchTag(once, "LockHeld", (held) =>
      waitSeconds <= 0
        ? Effect.fail(new StoreBusy({ path, owner: held.owner, lock: lockPath, waited: 0 }))
        : Effect.logInfo(
            `vector store ${path} is being written by ${held.owner}; waiting for it (up to ${waitSeconds} s)`
          ).pipe(
            Effect.zipRight(
              Effect.retry(
                once,
                Schedule.spaced(Duration.seconds(1)).pipe(Schedule.intersect(Schedule.recurs(waitSeconds)))
              )
            ),
            Effect.mapError((last) => new StoreBusy({ path, owner: last.owner, lock: lockPath, waited: waitSeconds }))
          )
    )
    yield* keepLockAlive(lock)
    return lock
  })
