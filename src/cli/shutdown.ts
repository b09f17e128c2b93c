/**
 * Signals. The first SIGINT/SIGTERM asks the running command to stop gracefully when it can
 * (`run` registers a hook: stop reading, finish what is in flight, flush, exit 130); a command
 * without a hook is interrupted (e.g. the emulator closes and exits 0). A second signal exits at
 * once with 130; SQLite's transactions keep the ledger consistent.
 *
 * Under npm (`npm run svc-batch`, `npm start`): the scripts `exec` the tool, so it is npm's own
 * child, and npm relays the SIGINT and SIGTERM it gets to it — a signal sent to npm alone stops the
 * tool too (through `sh -c` without exec, the shell swallowed a relayed SIGINT and the job ran to
 * its end). A signal sent to the whole process group (Ctrl-C, `timeout`, systemd) therefore arrives
 * twice, directly and relayed: the same signal again soon after, while npm is alive, is that relay,
 * not a second signal (it would cut the graceful stop short: no summary, no resume hint). The death
 * of npm (a SIGKILL, or a shell in between that does not relay) counts as a SIGTERM, unless a stop
 * is already under way.
 */
import { Deferred, Effect, Exit } from "effect"
import { readFileSync } from "node:fs"
import { notice } from "../engine/progress.ts"

let hook: (() => void) | undefined

/** How long after a signal the same one from npm is taken for its relay of it (npm relays at once). */
export const RELAY_WINDOW_MS = 1000

/** Registers this command for graceful stops; the effect completes when a stop is asked. */
export const gracefulStop = Effect.gen(function* () {
  const d = yield* Deferred.make<void>()
  hook = () => Deferred.unsafeDone(d, Exit.void)
  yield* Effect.addFinalizer(() => Effect.sync(() => void (hook = undefined)))
  return Deferred.await(d)
})

/**
 * Whether the parent process is npm itself (the one that relays signals to its child). npm's
 * variables are inherited by every descendant (a test runner started by `npm test` or `npx`), so
 * they alone would take a real second Ctrl-C for a relay there. npm names its process `npm run x`
 * / `npm start`; where /proc is missing, the variables are all there is.
 */
const parentIsNpm = (): boolean => {
  try {
    const args = readFileSync(`/proc/${process.ppid}/cmdline`, "utf8")
      .split("\0")
      .filter((a) => a !== "")
    return args.length > 0 && (/^npm( |$)/.test(args[0]!) || args.some((a) => /[\\/]npm-cli\.js$/.test(a)))
  } catch {
    return process.env.npm_lifecycle_event !== undefined
  }
}

/** Installs the handlers; `interrupt` stops a command that has no hook. */
export const installSignalHandlers = (interrupt: () => void) => {
  let count = 0
  const underNpm = process.env.npm_lifecycle_event !== undefined
  const relaysFromParent = underNpm && parentIsNpm()
  const parent = process.ppid
  let last: { readonly signal: NodeJS.Signals; readonly at: number } | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    const at = performance.now()
    const relayed =
      relaysFromParent && process.ppid === parent && last?.signal === signal && at - last.at < RELAY_WINDOW_MS
    if (relayed) return
    last = { signal, at } // from the first of a pair: a press every half second is not all relays
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
  // Under `npm run` / `npm start`, npm killed (SIGKILL), or one that did not relay a signal to us
  // (a shell in between, an npm that does not relay), and the tool would go on spending in the
  // background. When the process that started us is gone (we were re-parented), that is a stop, as
  // SIGTERM. A timer, unref'd: it never keeps the process alive.
  if (underNpm) {
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
