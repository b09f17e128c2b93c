/**
 * A lock file held by one process at a time: created exclusively, naming its owner (pid, host,
 * start), touched every few seconds while held (a heartbeat). It is taken over when its owner is
 * gone: on this host, its process no longer exists; from another host (a file on a shared disk),
 * its heartbeat is older than a minute. The job's lock (`<ledger>.lock`) and the vector store's
 * (`<store>.lock`) are both this.
 */
import { Data, Duration, Effect, Option, Schedule, Schema } from "effect"
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from "node:fs"
import { hostname } from "node:os"
import { dirname } from "node:path"
import { processAlive } from "./process-alive.ts"

/** The lock is held by another live owner, described for a message. */
export class LockHeld extends Data.TaggedError("LockHeld")<{ readonly path: string; readonly owner: string }> {}

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

export type LockReading =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Unreadable" }
  | { readonly _tag: "Owned"; readonly owner: LockOwner; readonly touched: number }

export const readLock = (path: string): LockReading => {
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
  const held =
    owner.host === hostname() ? owner.pid !== process.pid && processAlive(owner.pid) : Date.now() - touched < STALE_MS
  return held ? Option.some(owner) : Option.none()
}

const describe = (o: LockOwner) =>
  `process ${o.pid}${o.host === hostname() ? "" : ` on ${o.host}`}${o.started ? `, started ${o.started}` : ""}`

/** Takes the lock, or fails with LockHeld naming its owner. */
const acquire = (path: string) =>
  Effect.suspend(() => {
    mkdirSync(dirname(path), { recursive: true })
    const me: LockOwner = { pid: process.pid, host: hostname(), started: new Date().toISOString() }
    for (let attempt = 0; attempt < 3; attempt++) {
      if (tryCreate(path, me)) return Effect.succeed(path)
      const owner = holder(path)
      if (Option.isSome(owner)) return Effect.fail(new LockHeld({ path, owner: describe(owner.value) }))
      rmSync(path, { force: true }) // left by an owner that is gone
    }
    return Effect.fail(new LockHeld({ path, owner: "another process, taking it at the same moment" }))
  })

/** One attempt at the lock, released (the file removed) with the scope. */
export const takeLock = (path: string) =>
  Effect.acquireRelease(acquire(path), (p) => Effect.sync(() => rmSync(p, { force: true })))

/** Touches the lock every HEARTBEAT for the scope, so that another host sees its owner is alive. */
export const keepLockAlive = (lock: string) =>
  Effect.forkScoped(
    Effect.sync(() => {
      const now = new Date()
      try {
        utimesSync(lock, now, now)
      } catch {
        // A lock removed under us: the next invocation may start; nothing to repair here.
      }
    }).pipe(Effect.repeat(Schedule.spaced(HEARTBEAT)), Effect.delay(HEARTBEAT))
  )
