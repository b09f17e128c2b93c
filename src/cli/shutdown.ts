/**
 * Signals. The first SIGINT/SIGTERM asks the running command to stop gracefully when it can
 * (`run` registers a hook: stop reading, finish what is in flight, flush, exit 130); a command
 * without a hook is interrupted (e.g. the emulator closes and exits 0). A second signal exits at
 * once with 130; SQLite's transactions keep the ledger consistent. Under npm, the death of npm (which
 * does not forward SIGTERM) counts as a SIGTERM — unless a stop is already under way: `timeout` and
 * systemd signal the whole process group, so npm dies of the same SIGTERM the tool is handling, and
 * that must not count as a second one (it cut the graceful stop short: no summary, no resume hint).
 */
import { Deferred, Effect, Exit } from "effect"
import { notice } from "../engine/progress.ts"

let hook: (() => void) | undefined

/** Registers this command for graceful stops; the effect completes when a stop is asked. */
export const gracefulStop = Effect.gen(function* () {
  const d = yield* Deferred.make<void>()
  hook = () => Deferred.unsafeDone(d, Exit.void)
  yield* Effect.addFinalizer(() => Effect.sync(() => void (hook = undefined)))
  return Deferred.await(d)
})

/** Installs the handlers; `interrupt` stops a command that has no hook. */
export const installSignalHandlers = (interrupt: () => void) => {
  let count = 0
  const onSignal = (signal: NodeJS.Signals) => {
    count++
    if (count > 1) {
      notice(`svc-batch: second ${signal}: exiting now (the ledger stays consistent)`)
      process.exit(130)
    }
    if (hook) {
      const again = signal === "SIGINT" ? "press Ctrl-C again" : `send ${signal} again`
      notice(`svc-batch: ${signal}: stopping — finishing requests in flight; ${again} to exit at once`)
      hook()
    } else interrupt()
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  // Under `npm run` / `npm start`, a SIGTERM sent to npm (timeout, systemd, docker stop) kills npm
  // without passing it on, and the tool would go on spending in the background. When the process
  // that started us is gone (we were re-parented), that is a stop, as SIGTERM. A timer, unref'd:
  // it never keeps the process alive.
  if (process.env.npm_lifecycle_event !== undefined) {
    const parent = process.ppid
    const watch = setInterval(() => {
      if (process.ppid === parent) return
      clearInterval(watch)
      // npm died of the signal we are already handling: nothing more to do. That signal may still
      // be pending: timers run before the poll phase that reads signals, so after a busy turn of
      // the loop the orphan is seen first. Decided a moment later, it is not counted twice.
      setTimeout(() => {
        if (count === 0) onSignal("SIGTERM")
      }, 100).unref()
    }, 500).unref()
  }
}
