/**
 * The queue that carries work units to workers: pg-boss 10 (Node 20) in the shared PostgreSQL.
 * pg-boss keeps each unit until a worker completes it, retries one that failed (at once: a unit
 * given back by a stopping worker is taken by another without delay) up to the retry limit, and
 * expires one whose worker vanished (a backstop: the coordinator gives a silent worker's unit to
 * another much sooner, see coordinator.ts). Workers fetch units themselves rather than through
 * pg-boss's polling loop, so a free slot asks at once and a stop takes no new unit.
 */
import { Effect, Redacted, Schedule } from "effect"
import type PgBoss from "pg-boss"
import { clusterFailure } from "./unit-board.ts"
import { UNIT_QUEUE } from "./cluster-settings.ts"
import type { UnitPayload } from "./unit-payload.ts"

/** PostgreSQL's deadlock_detected and serialization_failure: the transaction may simply be tried again. */
export const isTransientConflict = (e: unknown): boolean =>
  typeof e === "object" && e !== null && ["40P01", "40001"].includes(String((e as { code?: unknown }).code))

/**
 * `self` tried again while it fails with a transient conflict: up to 6 more tries, 50 ms apart and
 * doubling, jittered (processes that met must not meet again).
 */
export const retryConflicts = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(self, {
    while: isTransientConflict,
    schedule: Schedule.exponential("50 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(6)))
  })

/** A unit may stay active this long before pg-boss fails it (the silent-worker check comes first). */
const EXPIRE_SECONDS = 4 * 3600

export const makeUnitQueue = (url: Redacted.Redacted<string>, options: { readonly supervise: boolean }) =>
  Effect.gen(function* () {
    const plain = Redacted.value(url)
    const { default: Boss } = yield* Effect.promise(() => import("pg-boss"))
    const stop = (b: PgBoss) => b.stop({ graceful: false, wait: true }).catch(() => undefined)
    const start = Effect.tryPromise({
      try: async () => {
        const b = new Boss({
          connectionString: plain,
          max: 2,
          schedule: false,
          supervise: options.supervise,
          maintenanceIntervalSeconds: 60
        })
        // pg-boss reports what its background work met as events; unheard, an 'error' would throw.
        b.on("error", () => undefined)
        try {
          await b.start()
          await b.createQueue(UNIT_QUEUE)
          return b
        } catch (e) {
          await stop(b)
          throw e
        }
      },
      catch: (e) => e
    })
    const boss: PgBoss = yield* Effect.acquireRelease(
      start.pipe(
        // Processes starting the queue at once (a coordinator and its workers) can deadlock in
        // pg-boss's set-up (CI, a coordinator and a worker; 4 at once on a new database: 5 of 8 rounds at load ~5); PostgreSQL's advice for
        // its victim is to try again.
        retryConflicts,
        Effect.mapError(clusterFailure(plain, "cannot start the unit queue"))
      ),
      (b) => Effect.promise(() => stop(b))
    )
    const call = <A>(what: string, f: () => Promise<A>) =>
      Effect.tryPromise({ try: f, catch: clusterFailure(plain, what) })
    return {
      /** Sends a unit; its pg-boss id. */
      send: (payload: UnitPayload, retryLimit: number) =>
        call("cannot send a unit", () =>
          boss.send(UNIT_QUEUE, payload, { retryLimit, retryDelay: 0, expireInSeconds: EXPIRE_SECONDS })
        ).pipe(Effect.map((id) => id ?? "")),
      /** The next unit waiting, if any (it becomes active). */
      fetch: call("cannot fetch a unit", () => boss.fetch<unknown>(UNIT_QUEUE, { batchSize: 1 })).pipe(
        Effect.map((jobs) => jobs[0])
      ),
      complete: (id: string) => call("cannot complete a unit", () => boss.complete(UNIT_QUEUE, id)),
      /** Failed: retried at once while its retry limit allows. */
      fail: (id: string, message: string) =>
        call("cannot give a unit back", () => boss.fail(UNIT_QUEUE, id, { message })),
      cancel: (ids: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.void : call("cannot cancel units", () => boss.cancel(UNIT_QUEUE, [...ids])),
      /** The unit's pg-boss state (created, retry, active, completed, cancelled, failed), none if gone. */
      state: (id: string) =>
        call("cannot read a unit's state", () => boss.getJobById(UNIT_QUEUE, id)).pipe(Effect.map((job) => job?.state)),
      /** Seconds since a worker took the unit from the queue, if it is active. */
      activeFor: (id: string) =>
        call("cannot read a unit's state", () => boss.getJobById(UNIT_QUEUE, id)).pipe(
          Effect.map((job) =>
            job?.state === "active" && job.startedOn !== null
              ? (Date.now() - new Date(job.startedOn).getTime()) / 1000
              : undefined
          )
        )
    }
  })

export type UnitQueue = Effect.Effect.Success<ReturnType<typeof makeUnitQueue>>
