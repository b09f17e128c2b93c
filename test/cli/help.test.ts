/** `--help`: our renderer over the command tree, and the bin's answer from the build's help files. */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { description, loadSubcommands, program, version } from "../../src/cli/commands.ts"
import { writeHelpFiles } from "../../src/cli/help-files.ts"
import { commandHelp, commandName, helpRequest, programHelp } from "../../src/cli/help.ts"
import { runCommand } from "../../src/cli/run-command.ts"
import { spawnCli } from "./spawn-cli.ts"

const root = new URL("../..", import.meta.url).pathname
const subcommands = await loadSubcommands()

describe("help", () => {
  it("a command's help: usage line with the program's name, one line per option with its default", () => {
    const help = commandHelp(program, runCommand)
    expect(help.split("\n")[0]).toBe("Usage: svc-batch run [options] <job-file>")
    const folded = help.replace(/\s+/g, " ")
    expect(folded).toContain(
      "--concurrency <integer> most requests in flight per model (default: the job's limits.concurrency, else 32)"
    )
    expect(folded).toContain("--cache read-write|refresh|off")
    // What @effect/cli generates for every option alike is left out.
    for (const generated of ["A file.", "A true or false value.", "This setting is optional.", "An integer."])
      expect(help).not.toContain(generated)
  })

  it("no line of any help is padded or runs far past 100 columns", () => {
    const helps = [
      programHelp(program, version, description, subcommands),
      ...subcommands.map((c) => commandHelp(program, c))
    ]
    for (const help of helps)
      for (const line of help.split("\n")) {
        expect(line).not.toMatch(/\s$/)
        // A term (an option with all its choices) may pass 100; descriptions wrap at 100.
        if (!line.startsWith("  -")) expect(line.length).toBeLessThanOrEqual(100)
      }
  })

  it("asks for help with no arguments or -h/--help anywhere: the named command's, else the program's", () => {
    expect(helpRequest([], subcommands)).toBe("program")
    expect(helpRequest(["--help"], subcommands)).toBe("program")
    expect(helpRequest(["run", "job.yaml", "-h"], subcommands)).toBe(runCommand)
    expect(helpRequest(["nope", "--help"], subcommands)).toBe("program")
    expect(helpRequest(["run", "job.yaml"], subcommands)).toBeUndefined()
  })

  it("the build writes one help file per command, the same text as the renderer's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-help-"))
    await writeHelpFiles(dir)
    expect(readdirSync(dir).sort()).toEqual(["index.txt", ...subcommands.map((c) => `${commandName(c)}.txt`)].sort())
    expect(readFileSync(join(dir, "run.txt"), "utf8")).toBe(commandHelp(program, runCommand))
    expect(readFileSync(join(dir, "index.txt"), "utf8")).toBe(programHelp(program, version, description, subcommands))
  })

  it("the bin: --version is package.json's (also the command tree's), --help exits 0", async () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version
    expect(version).toBe(pkg)
    const v = spawnCli(["--version"])
    expect(await v.exited).toBe(0)
    expect(v.out()).toBe(`${pkg}\n`)
    const h = spawnCli(["gc", "--help"])
    expect(await h.exited).toBe(0)
    expect(h.out()).toContain("Usage: svc-batch gc [options] <job-file>")
  })
})
