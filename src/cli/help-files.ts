/**
 * Written at build time (`npm run build`): the program's and each command's `--help` as text files
 * in dist/cli/help/, so the bin answers `--help` without loading the command tree (start-up).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { description, program, subcommands, version } from "./commands.ts"
import { commandHelp, commandName, programHelp } from "./help.ts"

const dir = process.argv[2]
if (!dir) throw new Error("usage: help-files.js <dir>")
mkdirSync(dir, { recursive: true })
writeFileSync(join(dir, "index.txt"), programHelp(program, version, description, subcommands))
for (const command of subcommands)
  writeFileSync(join(dir, `${commandName(command)}.txt`), commandHelp(program, command))
