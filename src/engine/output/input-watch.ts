/**
 * The input watched while its records are processed: one `stat` a second (the guard's `look`), so
 * a file appended to, rewritten or replaced mid-run stops the run then — nothing new is sent, the
 * answers paid for stay in the ledger — instead of after every request has been paid for and the
 * output found to be unwritable. A file only touched (same size, another mtime or inode) is read
 * again and hashed: only a changed fingerprint stops the run.
 */
import { Deferred, Duration, Effect, Fiber, Schedule, type Scope } from "effect"
import type { InputChanged, InputGuard } from "./input-guard.ts"

export interface InputWatch {
  /** Completes when the input has changed: a stop, for the run's flow. */
  readonly changed: Effect.Effect<void>
  /** The change, once seen. */
  readonly failure: () => InputChanged | undefined
  /** Stops watching (before the output's own checks of the input). */
  readonly end: Effect.Effect<void>
}

export const watchInput = (
  guard: InputGuard,
  every: Duration.DurationInput = Duration.seconds(1)
): Effect.Effect<InputWatch, never, Scope.Scope> =>
  Effect.gen(function* () {
    const seen = yield* Deferred.make<void>()
    let failure: InputChanged | undefined
    const look = Effect.suspend(() => {
      const now = guard.look()
      if (now === "same") return Effect.void
      return now === "touched" ? guard.verify : Effect.fail(now)
    })
    const fiber = yield* Effect.forkScoped(
      look.pipe(
        Effect.repeat(Schedule.spaced(every)),
        Effect.catchAll((e) => {
          failure = e
          return Deferred.succeed(seen, undefined)
        })
      )
    )
    return { changed: Deferred.await(seen), failure: () => failure, end: Fiber.interrupt(fiber) }
  })
