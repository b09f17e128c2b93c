/**
 * One invocation of a job at a time: a lock file beside the ledger (`<ledger>.lock`, see
 * io/lock-file.ts). Every command that writes the ledger (run, retry, gc) holds it: a second run
 * of the same job while the first goes on would ask the same records again and pay twice, a gc
 * would delete answers a starting run is about to reuse. It stops at once (exit 7), or with
 * `--wait` waits for the lock.
 */
import { Console, Data, Duration, Effect, Option, Schedule } from "effect"
import { hostname } from "node:os"
import { keepLockAlive, readLock, takeLock } from "../io/lock-file.ts"
import { processAlive } from "../io/process-alive.ts"
import { ExitCode } from "../exit-code.ts"
import { JobContext, withJobLedger } from "../job/job-context.ts"

export class JobBusy extends Data.TaggedError("JobBusy")<{
  readonly job: string
  readonly owner: string
  readonly lock: string
}> {
  /** Exit 7 when it ends a command: another invocation holds it; nothing was done. */
  get exitCode() {
    return ExitCode.busy
  }
  override get message() {
    return `job ${this.job} is already running (${this.owner}); wait for it (or run with --wait), or watch it with svc-batch status (lock ${this.lock})`
  }
}

/**
 * Whether the invocation that holds the job's lock is certainly gone, for `status` and `runs`: a
 * run the ledger calls running whose lock is missing, or names a process of this host that no longer
 * exists, was killed (its process could not mark it interrupted). `undefined` when it may still be
 * running: a live process here, a lock from another host (only its heartbeat tells, not this), or
 * one that cannot be read (being written).
 */
export const lockOwnerGone = (ledger: string): string | undefined => {
  const lock = readLock(`${ledger}.lock`)
  if (lock._tag === "Free") return "no process holds the job's lock"
  if (lock._tag === "Unreadable" || lock.owner.host !== hostname()) return undefined
  return processAlive(lock.owner.pid) ? undefined : `its process ${lock.owner.pid} is gone`
}

/**
 * Holds the job's lock for the scope (with its heartbeat). `wait`: when it is taken, says so once
 * and tries again every second until it is free, instead of failing.
 */
export const lockJob = (job: string, ledger: string, options: { readonly wait?: boolean } = {}) => {
  const path = `${ledger}.lock`
  // Each attempt is acquired with its release; the waits between attempts stay interruptible.
  const once = Effect.mapError(takeLock(path), (held) => new JobBusy({ job, owner: held.owner, lock: path }))
  const take = options.wait
    ? Effect.catchTag(once, "JobBusy", (busy) =>
        Effect.logInfo(`job ${job} is already running (${busy.owner}); waiting for it to finish (--wait)`).pipe(
          Effect.zipRight(Effect.retry(once, Schedule.spaced(Duration.seconds(1))))
        )
      )
    : once
  return Effect.gen(function* () {
    const lock = yield* take
    yield* keepLockAlive(lock)
    return lock
  })
}

/**
 * `body` holding the context's job's lock, with the job's ledger open (opened after the lock: a
 * command refused for a busy job leaves the ledger alone). `stop`: when it comes first while
 * waiting for the lock (--wait), nothing was done, which is said, and its value is the result.
 */
export const whileLocked = <A, E, R, B = never>(
  body: Effect.Effect<A, E, R>,
  options: { readonly wait: boolean; readonly stop?: Effect.Effect<B> }
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { job } = yield* JobContext
      const locked = yield* Effect.raceFirst(
        Effect.as(lockJob(job.name, job.state, { wait: options.wait }), Option.none<B>()),
        Effect.map(options.stop ?? Effect.never, Option.some)
      )
      if (Option.isSome(locked)) {
        yield* Console.log(`stopped while waiting for the running invocation of job ${job.name}; nothing was sent`)
        return locked.value
      }
      return yield* withJobLedger(body)
    })
  )
