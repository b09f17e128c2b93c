/**
 * The package as a library, from plain Node (no tsx): the README's example, run as a user runs it,
 * against the compiled `dist/` that `npm ci` builds (rebuilt here first when a source is newer).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { spawnCli } from "../cli/spawn-cli.ts"

const root = new URL("../..", import.meta.url).pathname

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (m, e) =>
      Math.max(
        m,
        e.isDirectory() ? newest(join(dir, e.name)) : e.name.endsWith(".ts") ? statSync(join(dir, e.name)).mtimeMs : 0
      ),
    0
  )

const ensureBuilt = () => {
  const stamp = join(root, "dist", ".built")
  if (
    !existsSync(stamp) ||
    Math.max(newest(join(root, "src")), newest(join(root, "pipelines"))) > statSync(stamp).mtimeMs
  ) {
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" })
  }
}

describe("library use", () => {
  it("the README's example runs a moderate → translate pipeline from plain Node", () => {
    ensureBuilt()
    const env = { ...process.env }
    delete env.SVC_BASE_URL
    delete env.SVC_API_KEY
    const out = execFileSync(process.execPath, [join(root, "examples", "moderate-then-translate.mjs")], {
      cwd: root,
      env,
      encoding: "utf8"
    })
    const lines = out.trim().split("\n")
    expect(lines[0]).toMatch(/^1: safe → \[emulated translation\] /)
    expect(lines[1]).toBe("2: harmful → (not translated)")
    expect(lines[2]).toBe("3: safe → The meeting moves to Thursday.")
  }, 60_000)

  it("the built bin (the bundle) answers --help, without colour codes when piped", async () => {
    ensureBuilt()
    const help = spawnCli(["--help"], {})
    expect(await help.exited).toBe(0)
    expect(help.out()).toContain("svc-batch")
    expect(help.out()).not.toMatch(/\x1b\[/)
    // Answered from the help file the build wrote (the command tree is not loaded for it).
    expect(help.out()).toBe(readFileSync(join(root, "dist", "cli", "help", "index.txt"), "utf8"))
    const runHelp = spawnCli(["run", "-h"], {})
    expect(await runHelp.exited).toBe(0)
    expect(runHelp.out()).toBe(readFileSync(join(root, "dist", "cli", "help", "run.txt"), "utf8"))
  }, 30_000)
})
