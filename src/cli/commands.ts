/** The `svc-batch` command tree: the program's name, version and description, and its subcommands. */
import { Command } from "@effect/cli"
import { checkCommand } from "./check-command.ts"
import { demoCommand } from "./demo-command.ts"
import { emulatorCommand } from "./emulator-command.ts"
import { gcCommand } from "./gc-command.ts"
import { planCommand } from "./plan-command.ts"
import { reportCommand } from "./report-command.ts"
import { retryCommand } from "./retry-command.ts"
import { runCommand } from "./run-command.ts"
import { runsCommand } from "./runs-command.ts"
import { searchCommand } from "./search-command.ts"
import { statusCommand } from "./status-command.ts"
import { workerCommand } from "./worker-command.ts"

export const program = "svc-batch"
export const version = "0.1.0"
export const description =
  "Batch pipelines over the text service (moderation, translation, embeddings, rerank, generation)"

export const subcommands = [
  runCommand,
  planCommand,
  statusCommand,
  runsCommand,
  retryCommand,
  reportCommand,
  searchCommand,
  checkCommand,
  gcCommand,
  emulatorCommand,
  demoCommand,
  workerCommand
] as const

export const root = Command.make(program).pipe(
  Command.withDescription(description),
  Command.withSubcommands([...subcommands])
)
