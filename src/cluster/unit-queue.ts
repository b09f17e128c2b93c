/**
 * The queue that carries work units to workers: pg-boss 10 (Node 20) in the shared PostgreSQL.
 * pg-boss keeps each unit until a worker completes it, retries one that failed (at once: a unit
 * given back by a stopping worker is taken by another without delay) up to the retry limit, and
 * expires one whose worker vanished (a backstop: the coordinator gives a silent worker's unit to
 * another much sooner, see coordinator.ts). Workers fetch units themselves rather than through
 * pg-boss's polling loop, so a free slot asks at once and a stop takes no new unit.
 */
import { Effect, Redacted } from "effect"
import type PgBoss from "pg-boss"
import { clusterFailure } from "./unit-board.ts"
import { UNIT_QUEUE } from "./cluster-settings.ts"
import type { UnitPayload } from "./unit-payload.ts"

/** A unit may stay active this long before pg-boss fails it (the silent-worker check comes first). */
const EXPIRE_SECONDS = 4 * 3600

export const makeUnitQueue = (url: Redacted.Redacted<string>, options: { readonly supervise: boolean }) =>
  Effect.gen(function* () {
    const plain = Redacted.value(url)
    const { default: Boss } = yield* Effect.promise(() => import("pg-boss"))
    const boss: PgBoss = yield* Effect.acquireRelease(
      Effect.tryPromise({
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
          await b.start()
          await b.createQueue(UNIT_QUEUE)
          return b
        },
        catch: clusterFailure(plain, "cannot start the unit queue")
      }),
      (b) => Effect.promise(() => b.stop({ graceful: false, wait: true }).catch(() => undefined))
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
