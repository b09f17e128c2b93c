/**
 * Written at build time (`node dist/cli/help-files.cjs dist/cli/help`): the program's and each
 * command's `--help` as text files, so the bin answers `--help` without loading the command tree.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { description, loadSubcommands, program, version } from "./commands.ts"
import { commandHelp, commandName, programHelp } from "./help.ts"

export const writeHelpFiles = async (dir: string) => {
  const subcommands = await loadSubcommands()
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "index.txt"), programHelp(program, version, description, subcommands))
  for (const command of subcommands)
    writeFileSync(join(dir, `${commandName(command)}.txt`), commandHelp(program, command))
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2]
  if (!dir) throw new Error("usage: help-files.cjs <dir>")
  // No top-level await: the build bundles this file as CommonJS.
  writeHelpFiles(dir).catch((e: unknown) => {
    console.error(e)
    process.exit(1)
  })
}
