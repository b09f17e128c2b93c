/** The command a line asks for, so that only it is imported (src/cli/commands.ts). */
import { describe, expect, it } from "@effect/vitest"
import { commandOf, loadSubcommands } from "../../src/cli/commands.ts"
import { commandName } from "../../src/cli/help.ts"

describe("commands", () => {
  it("the first argument that is neither an option nor an option's value names the command", () => {
    expect(commandOf(["status", "job.yaml"])).toBe("status")
    expect(commandOf(["--log-level", "debug", "runs", "job.yaml"])).toBe("runs")
    expect(commandOf(["--log-level=debug", "gc", "job.yaml"])).toBe("gc")
    expect(commandOf(["run", "job.yaml", "--new-run"])).toBe("run")
  })

  it("a line that names no command loads them all (@effect/cli then says what is wrong)", async () => {
    expect(commandOf([])).toBeUndefined()
    expect(commandOf(["--help"])).toBeUndefined()
    expect(commandOf(["nope", "run"])).toBeUndefined()
    expect(commandOf(["--completions", "bash"])).toBeUndefined()
    expect((await loadSubcommands()).map(commandName)).toEqual([
      "run",
      "plan",
      "status",
      "runs",
      "retry",
      "report",
      "search",
      "check",
      "gc",
      "emulator",
      "demo",
      "worker"
    ])
    expect((await loadSubcommands(["status"])).map(commandName)).toEqual(["status"])
  })
})
