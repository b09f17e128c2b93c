/**
 * Colour only for a terminal: @effect/cli renders help and its parse errors with ANSI codes
 * whatever the output is. This Console drops them from what goes to a stream that is not a TTY
 * (a pipe, a file, cron's mail), and everywhere when NO_COLOR is set.
 */
import { Console, Effect } from "effect"

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g

export const stripAnsi = (text: string): string => text.replace(ANSI, "")

/** Whether text for this stream keeps its colours. */
export const colourFor = (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")

const plain = (keep: boolean) => (args: ReadonlyArray<unknown>) =>
  keep ? args : args.map((a) => (typeof a === "string" ? stripAnsi(a) : a))

/** `effect` with a Console whose log/info go to stdout and error/warn to stderr without ANSI codes unless a terminal. */
export const withPlainConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.console, (base) => {
    const out = plain(colourFor(process.stdout))
    const err = plain(colourFor(process.stderr))
    const unsafe: Console.UnsafeConsole = {
      ...base.unsafe,
      log: (...args) => base.unsafe.log(...out(args)),
      info: (...args) => base.unsafe.info(...out(args)),
      error: (...args) => base.unsafe.error(...err(args)),
      warn: (...args) => base.unsafe.warn(...err(args))
    }
    const console: Console.Console = {
      ...base,
      unsafe,
      log: (...args) => base.log(...out(args)),
      info: (...args) => base.info(...out(args)),
      error: (...args) => base.error(...err(args)),
      warn: (...args) => base.warn(...err(args))
    }
    return Console.withConsole(effect, console)
  })
