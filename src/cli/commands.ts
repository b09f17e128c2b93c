/**
 * The `svc-batch` command tree: the program's name, version and description, and its subcommands,
 * each imported when asked for (a dynamic import: its own chunk of the bundle), so a command loads
 * only its own graph — `runs` or `status` not the engine, the emulator or the sinks `run` needs.
 */
import { Command } from "@effect/cli"
import { Array as Arr } from "effect"

export const program = "svc-batch"
export const version = "0.1.0"
export const description =
  "Batch pipelines over the text service (moderation, translation, embeddings, rerank, generation)"

/** Every subcommand, in the order the program's help lists them. */
const loaders = {
  run: () => import("./run-command.ts").then((m) => m.runCommand),
  plan: () => import("./plan-command.ts").then((m) => m.planCommand),
  status: () => import("./status-command.ts").then((m) => m.statusCommand),
  runs: () => import("./runs-command.ts").then((m) => m.runsCommand),
  retry: () => import("./retry-command.ts").then((m) => m.retryCommand),
  report: () => import("./report-command.ts").then((m) => m.reportCommand),
  search: () => import("./search-command.ts").then((m) => m.searchCommand),
  check: () => import("./check-command.ts").then((m) => m.checkCommand),
  gc: () => import("./gc-command.ts").then((m) => m.gcCommand),
  emulator: () => import("./emulator-command.ts").then((m) => m.emulatorCommand),
  demo: () => import("./demo-command.ts").then((m) => m.demoCommand),
  worker: () => import("./worker-command.ts").then((m) => m.workerCommand)
}

export type CommandName = keyof typeof loaders
export type Subcommand = Awaited<ReturnType<(typeof loaders)[CommandName]>>

const names = Object.keys(loaders) as ReadonlyArray<CommandName>
const isName = (arg: string | undefined): arg is CommandName => arg !== undefined && Object.hasOwn(loaders, arg)

/** @effect/cli's options before a subcommand that take a value as the next argument. */
const valued = new Set(["--log-level", "--completions"])

/**
 * The subcommand a command line asks for (arguments after the program's name): its first argument
 * that is neither an option nor an option's value, when that names a command; else undefined
 * (every command is loaded then, and @effect/cli says what is wrong as it always has).
 */
export const commandOf = (args: ReadonlyArray<string>): CommandName | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (valued.has(arg)) i++
    else if (!arg.startsWith("-")) return isName(arg) ? arg : undefined
  }
  return undefined
}

/** The named subcommands (default: all), loaded, in the help's order. */
export const loadSubcommands = async (
  only?: ReadonlyArray<CommandName>
): Promise<Arr.NonEmptyReadonlyArray<Subcommand>> => {
  const loaded = await Promise.all(names.filter((n) => only === undefined || only.includes(n)).map((n) => loaders[n]()))
  if (!Arr.isNonEmptyReadonlyArray(loaded)) throw new Error(`no command named ${only?.join(", ")}`)
  return loaded
}

/** The program's command over these subcommands. */
export const rootOf = (subcommands: Arr.NonEmptyReadonlyArray<Subcommand>) =>
  Command.make(program).pipe(Command.withDescription(description), Command.withSubcommands(subcommands))
