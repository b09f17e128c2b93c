/**
 * Signals. The first SIGINT/SIGTERM asks the running command to stop gracefully when it can
 * (`run` registers a hook: stop reading, finish what is in flight, flush, exit 130); a command
 * without a hook is interrupted (e.g. the emulator closes and exits 0). A second signal exits at
 * once with 130; SQLite's transactions keep the ledger consistent. Under npm, the death of npm (which
 * does not forward SIGTERM) counts as a SIGTERM — unless a stop is already under way: `timeout` and
 * systemd signal the whole process group, so npm dies of the same SIGTERM the tool is handling, and
 * that must not count as a second one (it cut the graceful stop short: no summary, no resume hint).
 * For the same reason npm's own copy of a signal does not count: npm forwards SIGINT and SIGTERM to
 * the tool, which a signal to the whole group (Ctrl-C, `timeout`, systemd) also reaches directly;
 * the two arrive together, or apart when the machine is busy.
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

/** How long after a signal npm's copy of it may arrive (a busy machine delays the copy). */
export const NPM_COPY_MS = 2000

export interface SignalState {
  /** The signal that asked the stop, and when (ms). */
  readonly first?: { readonly signal: NodeJS.Signals; readonly at: number }
  /** npm's copy of the first signal has been set aside already. */
  readonly copySeen: boolean
}

/**
 * What a signal does: the first stops; under npm, the same signal again within NPM_COPY_MS is npm's
 * copy of it, set aside once; any other exits at once.
 */
export const onSignalState = (
  state: SignalState,
  signal: NodeJS.Signals,
  at: number,
  underNpm: boolean
): { readonly action: "stop" | "copy" | "exit"; readonly state: SignalState } => {
  if (state.first === undefined) return { action: "stop", state: { first: { signal, at }, copySeen: false } }
  if (underNpm && !state.copySeen && signal === state.first.signal && at - state.first.at < NPM_COPY_MS) {
    return { action: "copy", state: { ...state, copySeen: true } }
  }
  return { action: "exit", state }
}

/** Installs the handlers; `interrupt` stops a command that has no hook. */
export const installSignalHandlers = (interrupt: () => void) => {
  const underNpm = process.env.npm_lifecycle_event !== undefined
  let state: SignalState = { copySeen: false }
  const onSignal = (signal: NodeJS.Signals) => {
    const next = onSignalState(state, signal, Date.now(), underNpm)
    state = next.state
    if (next.action === "copy") return
    if (next.action === "exit") {
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
  if (underNpm) {
    const parent = process.ppid
    const watch = setInterval(() => {
      if (process.ppid === parent) return
      clearInterval(watch)
      // npm died of the signal we are already handling: nothing more to do.
      if (state.first === undefined) onSignal("SIGTERM")
    }, 500).unref()
  }
}
