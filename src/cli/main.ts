/** The `svc-batch` command. Layers for each subcommand are assembled in that subcommand's file. */
import { Command, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { type Array as Arr, Cause, Console, Effect, Either, Exit, Fiber, Logger, LogLevel, Option, Ref } from "effect"
import { OptionError } from "../job/job-file.ts"
import { LedgerError } from "../ledger/ledger.ts"
import { exitCodeFor } from "./exit-codes.ts"
import { CommandOutcome, done, type Outcome } from "./outcome.ts"
import { logFormat } from "./log-format.ts"
import { withPlainConsole } from "./plain-console.ts"
import { installSignalHandlers } from "./shutdown.ts"
import { exitWhenFlushed, exitWhenReaderGone } from "./flush-exit.ts"
import {
  commandOf,
  description,
  loadSubcommands,
  program as programName,
  rootOf,
  type Subcommand,
  version
} from "./commands.ts"
import { commandHelp, helpRequest, programHelp } from "./help.ts"

/**
 * `--log-format json` (anywhere on the line) or SVC_LOG_FORMAT=json: log lines as one JSON object
 * each on stderr — time, level, message, and the annotations (event, job, phase, counters) — for
 * log collectors. Taken off the command line here, so every command accepts it.
 */
const { format: logFormatName, rest: argv } = logFormat

// Only the command asked for is loaded (its own graph); a line naming none loads them all.
const asked = commandOf(argv.slice(2))

/**
 * Log lines (progress off a terminal, warnings) on stderr as `[time] text`, the level named when
 * it is not INFO. `--log-level` (built into @effect/cli) sets the minimum level they pass.
 */
const plainLogger = Logger.make(({ logLevel, message, date }) => {
  const text = (Array.isArray(message) ? message : [message])
    .map((m) => (typeof m === "string" ? m : String(m)))
    .join(" ")
  process.stderr.write(`[${date.toISOString()}] ${logLevel === LogLevel.Info ? "" : `${logLevel.label} `}${text}\n`)
})

const jsonLogger = Logger.make((options) => {
  process.stderr.write(`${JSON.stringify(Logger.structuredLogger.log(options))}\n`)
})

/** How the command ended without failing; read also when a signal interrupted it. */
const outcome = Ref.unsafeMake<Outcome>(done)

const programOf = (subcommands: Arr.NonEmptyReadonlyArray<Subcommand>) =>
  (logFormatName === "text" || logFormatName === "json"
    ? Command.run(rootOf(subcommands), { name: programName, version })([...argv])
    : Effect.fail(
        new OptionError({ flag: "--log-format", detail: `expected text or json, got ${JSON.stringify(logFormatName)}` })
      )
  ).pipe(
    Effect.provideService(CommandOutcome, outcome),
    Effect.zipRight(Ref.get(outcome)),
    // A failure prints one clear line (no stack). A bad command line (unknown flag, missing file, bad
    // value) was already printed by @effect/cli, in words (a ValidationError is not an Error and has no message).
    Effect.tapError((error) =>
      ValidationError.isValidationError(error)
        ? Effect.void
        : Console.error(`svc-batch: ${error instanceof Error ? error.message : String(error)}`)
    ),
    Effect.either,
    withPlainConsole,
    Effect.provide(Logger.replace(Logger.defaultLogger, logFormatName === "json" ? jsonLogger : plainLogger)),
    Effect.provide(NodeContext.layer)
  )

/** The command asked for, loaded: runs it (no top-level await: the bundle is also CommonJS). */
const start = (subcommands: Arr.NonEmptyReadonlyArray<Subcommand>) => {
  exitWhenReaderGone()
  // `--help` is ours (help.ts), not @effect/cli's; the bin answers it from the build's text files.
  const help = helpRequest(argv.slice(2), subcommands)
  if (argv.length === 3 && argv[2] === "--version") {
    process.stdout.write(`${version}\n`)
    process.exit(0)
  }
  if (help !== undefined) {
    process.stdout.write(
      help === "program" ? programHelp(programName, version, description, subcommands) : commandHelp(programName, help)
    )
    process.exit(0)
  }
  const fiber = Effect.runFork(programOf(subcommands))
  let ended = false
  // A signal after the command ended (its output still flushing to a slow reader) exits at once.
  installSignalHandlers(() => (ended ? process.exit(130) : Effect.runFork(Fiber.interrupt(fiber))))
  fiber.addObserver((exit) => {
    ended = true
    // The only place the process's exit code is decided: from the outcome or the error (a defect is 1).
    let code: number
    if (Exit.isSuccess(exit)) code = exitCodeFor(exit.value)
    else if (Cause.isInterruptedOnly(exit.cause)) code = exitCodeFor(Either.right(Effect.runSync(Ref.get(outcome))))
    else {
      // The ledger's reads do not fail in its port: a PostgreSQL ledger lost mid-command dies with its
      // LedgerError, which still says what happened in one line and carries its code (10).
      const died = Option.getOrUndefined(Cause.dieOption(exit.cause))
      if (died instanceof LedgerError) {
        console.error(`svc-batch: ${died.message}`)
        code = died.exitCode
      } else {
        console.error(`svc-batch: unexpected failure\n${Cause.pretty(exit.cause)}`)
        code = 1
      }
    }
    // Exit even if a library left a handle open (e.g. a keep-alive socket), once the output is out.
    setImmediate(() => exitWhenFlushed(code))
  })
}

void loadSubcommands(asked === undefined ? undefined : [asked]).then(start)
