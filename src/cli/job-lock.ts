/**
 * One invocation of a job at a time: a lock file beside the ledger (`<ledger>.lock`), created
 * exclusively, naming its owner (pid, host, start). Every command that writes the ledger (run,
 * retry, gc) holds it: a second run of the same job while the first goes on would ask the same
 * records again and pay twice, a gc would delete answers a starting run is about to reuse. It
 * stops at once (exit 7), or with `--wait` waits for the lock. The owner touches the file every few seconds
 * (a heartbeat). A lock is taken over when its owner is gone: on this host, its process no longer
 * exists; from another host (a ledger on a shared disk), its heartbeat is older than a minute.
 */
import { Data, Duration, Effect, Option, Schedule, Schema } from "effect"
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from "node:fs"
import { hostname } from "node:os"
import { dirname } from "node:path"
import { processAlive } from "../io/process-alive.ts"

export class JobBusy extends Data.TaggedError("JobBusy")<{ readonly job: string; readonly owner: string; readonly lock: string }> {
  override get message() {
    return `job ${this.job} is already running (${this.owner}); wait for it (or run with --wait), or watch it with svc-batch status (lock ${this.lock})`
  }
}

const LockOwner = Schema.parseJson(Schema.Struct({ pid: Schema.Int, host: Schema.String, started: Schema.String }))
type LockOwner = typeof LockOwner.Type

/** How often the owner touches the lock, and how old a touch may be before another host takes it over. */
export const HEARTBEAT = Duration.seconds(10)
const STALE_MS = 60_000

const tryCreate = (path: string, owner: LockOwner): boolean => {
  try {
    const fd = openSync(path, "wx")
    writeSync(fd, JSON.stringify(owner))
    closeSync(fd)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  }
}

type LockReading =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Unreadable" }
  | { readonly _tag: "Owned"; readonly owner: LockOwner; readonly touched: number }

const readLock = (path: string): LockReading => {
  let text: string
  let touched: number
  try {
    text = readFileSync(path, "utf8")
    touched = statSync(path).mtimeMs
  } catch {
    return { _tag: "Free" }
  }
  // A bare pid: a lock written by an earlier version, on this host.
  const legacy = /^\d+$/.test(text.trim()) ? { pid: Number(text.trim()), host: hostname(), started: "" } : undefined
  const owner = legacy ?? Option.getOrUndefined(Schema.decodeUnknownOption(LockOwner)(text))
  return owner === undefined ? { _tag: "Unreadable" } : { _tag: "Owned", owner, touched }
}

/** The lock's owner while it holds it; none when the lock is free, unreadable or left by an owner that is gone. */
const holder = (path: string): Option.Option<LockOwner> => {
  const lock = readLock(path)
  if (lock._tag !== "Owned") return Option.none()
  const { owner, touched } = lock
  const held = owner.host === hostname() ? owner.pid !== process.pid && processAlive(owner.pid) : Date.now() - touched < STALE_MS
  return held ? Option.some(owner) : Option.none()
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

const describe = (o: LockOwner) => `process ${o.pid}${o.host === hostname() ? "" : ` on ${o.host}`}${o.started ? `, started ${o.started}` : ""}`

/** Takes the lock, or fails with JobBusy naming its owner. */
const acquire = (job: string, path: string) =>
  Effect.suspend(() => {
    mkdirSync(dirname(path), { recursive: true })
    const me: LockOwner = { pid: process.pid, host: hostname(), started: new Date().toISOString() }
    for (let attempt = 0; attempt < 3; attempt++) {
      if (tryCreate(path, me)) return Effect.succeed(path)
      const owner = holder(path)
      if (Option.isSome(owner)) return Effect.fail(new JobBusy({ job, owner: describe(owner.value), lock: path }))
      rmSync(path, { force: true }) // left by an owner that is gone
    }
    return Effect.fail(new JobBusy({ job, owner: "another process, taking it at the same moment", lock: path }))
  })

/**
 * Holds the job's lock for the scope (with its heartbeat). `wait`: when it is taken, says so once
 * and tries again every second until it is free, instead of failing.
 */
export const lockJob = (job: string, ledger: string, options: { readonly wait?: boolean } = {}) => {
  const path = `${ledger}.lock`
  // Each attempt is acquired with its release; the waits between attempts stay interruptible.
  const once = Effect.acquireRelease(acquire(job, path), (p) => Effect.sync(() => rmSync(p, { force: true })))
  const take = options.wait
    ? Effect.catchTag(once, "JobBusy", (busy) =>
        Effect.logInfo(`job ${job} is already running (${busy.owner}); waiting for it to finish (--wait)`).pipe(
          Effect.zipRight(Effect.retry(once, Schedule.spaced(Duration.seconds(1))))
        )
      )
    : once
  return Effect.gen(function* () {
    const lock = yield* take
    yield* Effect.forkScoped(
      Effect.sync(() => {
        const now = new Date()
        try {
          utimesSync(lock, now, now)
        } catch {
          // A lock removed under us: the next invocation may start; nothing to repair here.
        }
      }).pipe(Effect.repeat(Schedule.spaced(HEARTBEAT)), Effect.delay(HEARTBEAT))
    )
    return lock
  })
}
