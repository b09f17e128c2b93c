/**
 * `--max-requests N`: a budget of requests for one invocation of a run. Each attempt takes one
 * before it is sent; once N are taken, further attempts wait (the run is stopping) and `spent`
 * completes, which stops the run as Ctrl-C does. `drained` completes when the budget is spent and
 * every request it allowed has been answered, so the run stops without waiting out its grace
 * period for records that can send nothing more.
 */
import { Deferred, Effect } from "effect"

export interface RequestBudget {
  /** Around one attempt: takes a request from the budget, or waits forever once it is spent. */
  readonly around: <A, E, R>(attempt: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly spent: Effect.Effect<void>
  readonly drained: Effect.Effect<void>
}

export const unlimited: RequestBudget = { around: (attempt) => attempt, spent: Effect.never, drained: Effect.never }

export const makeRequestBudget = (max: number | undefined): Effect.Effect<RequestBudget> =>
  max === undefined
    ? Effect.succeed(unlimited)
    : Effect.gen(function* () {
        const spent = yield* Deferred.make<void>()
        const drained = yield* Deferred.make<void>()
        let taken = 0
        let sending = 0
        const settle = Effect.suspend(() => (taken >= max && sending === 0 ? Deferred.succeed(drained, undefined) : Effect.void))
        const around = <A, E, R>(attempt: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
          Effect.suspend(() => {
            if (taken >= max) return Effect.zipRight(settle, Effect.never)
            taken++
            sending++
            const last = taken >= max ? Deferred.succeed(spent, undefined) : Effect.void
            return Effect.zipRight(
              last,
              attempt.pipe(
                Effect.ensuring(
                  Effect.suspend(() => {
                    sending--
                    return settle
                  })
                )
              )
            )
          })
        return { around, spent: Deferred.await(spent), drained: Deferred.await(drained) }
      })
