/** The `svc-batch` command. Layers for each subcommand are assembled in that subcommand's file. */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { demoCommand } from "./demo-command.ts"
import { emulatorCommand } from "./emulator-command.ts"
import { exitCodeFor } from "./exit-codes.ts"

const root = Command.make("svc-batch").pipe(
  Command.withDescription("Batch pipelines over the text service (moderation, translation, embeddings, rerank, generation)"),
  Command.withSubcommands([emulatorCommand, demoCommand])
)

const cli = Command.run(root, { name: "svc-batch", version: "0.1.0" })

cli(process.argv).pipe(
  // A failure prints one clear line (no stack) and sets the documented exit code.
  Effect.catchAll((error) =>
    Console.error(`svc-batch: ${error instanceof Error ? error.message : String(error)}`).pipe(
      Effect.andThen(Effect.sync(() => void (process.exitCode = exitCodeFor(error))))
    )
  ),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
