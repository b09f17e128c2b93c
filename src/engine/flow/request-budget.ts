/**
 * What may still be sent in this invocation of a run. Each attempt passes through `around`:
 * - with `--max-requests N`, the first N attempts go out; then `spent` completes, which stops the
 *   run as Ctrl-C does;
 * - after a stop (`halt`) or once the budget is spent, no new attempt goes out — it waits, and the
 *   record it belongs to is left for the next invocation — while those already sent finish;
 * - `drained` completes when nothing may be sent any more and nothing sent is still unanswered,
 *   so the run ends at once instead of waiting out its grace period.
 */
import { Deferred, Effect } from "effect"

export interface RequestBudget {
  /** Around one attempt: sends it while allowed, else waits forever (the run is stopping). */
  readonly around: <A, E, R>(attempt: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Completes once `--max-requests` is reached. */
  readonly spent: Effect.Effect<void>
  /** Stops sending: called when the run is asked to stop. */
  readonly halt: Effect.Effect<void>
  readonly drained: Effect.Effect<void>
}

export const makeRequestBudget = (max: number | undefined): Effect.Effect<RequestBudget> =>
  Effect.gen(function* () {
    const spent = yield* Deferred.make<void>()
    const drained = yield* Deferred.make<void>()
    let taken = 0
    let sending = 0
    let halted = false
    const closed = () => halted || (max !== undefined && taken >= max)
    const settle = Effect.suspend(() =>
      closed() && sending === 0 ? Deferred.succeed(drained, undefined) : Effect.void
    )
    const around = <A, E, R>(attempt: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        if (closed()) return Effect.zipRight(settle, Effect.never)
        taken++
        sending++
        const last = max !== undefined && taken >= max ? Deferred.succeed(spent, undefined) : Effect.void
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
    const halt = Effect.suspend(() => {
      halted = true
      return settle
    })
    return { around, spent: Deferred.await(spent), halt, drained: Deferred.await(drained) }
  })
