/**
 * Runs as `status` and `runs` show them, with the job's lock consulted: a run the ledger calls
 * running whose invocation is certainly gone (no lock, or a lock naming a process of this host that
 * no longer exists — a SIGKILL, a crash, a reboot) is stale at once, not after 15 s of silence.
 */
import { Effect } from "effect"
import type { ResolvedJob } from "../job/resolve-job.ts"
import type { Ledger, Run } from "../ledger/ledger.ts"
import { recordsRemoved } from "../report/records-removed.ts"
import { lockOwnerGone } from "./job-lock.ts"
import { type RunView, viewOf } from "./run-view.ts"

/** The ledger whose lock file tells whether a run is alive: SQLite's; none for a server every machine shares. */
export const lockSeenHere = (job: Pick<ResolvedJob, "state" | "ledgerUrl">): string | undefined =>
  job.ledgerUrl === undefined ? job.state : undefined

/**
 * `read` is done again when the lock says gone: a run that ended meanwhile marked its end before
 * releasing the lock. `ledger` undefined: the run may hold its lock on another machine (a
 * PostgreSQL ledger), so no lock here tells it is gone; only its silence does. Each view says
 * whether retention removed the run's records.
 */
export const viewsWithLock = <E, R>(
  read: Effect.Effect<ReadonlyArray<Run>, E, R>,
  ledger: string | undefined
): Effect.Effect<ReadonlyArray<RunView>, E, R | Ledger> =>
  Effect.gen(function* () {
    const withRemoved = (runs: ReadonlyArray<Run>) =>
      Effect.forEach(runs, (run) => Effect.map(recordsRemoved(run), (removed) => ({ run, removed })))
    const runs = yield* read
    if (ledger === undefined || !runs.some((r) => r.status === "running") || lockOwnerGone(ledger) === undefined)
      return (yield* withRemoved(runs)).map(({ run, removed }) => viewOf(run, Date.now(), undefined, removed))
    const again = yield* read
    // Checked again after the second read: an invocation that took the lock meanwhile is alive.
    const gone = lockOwnerGone(ledger)
    const now = Date.now()
    return (yield* withRemoved(again)).map(({ run, removed }) => viewOf(run, now, gone, removed))
  })
