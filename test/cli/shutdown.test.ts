/** Signal handling: one stop per event, however the event reaches the tool. */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { join } from "node:path"

const root = new URL("../..", import.meta.url).pathname
const child = join(root, "test/cli/fixtures/orphan-signal-child.ts")

const gone = (pid: number) => {
  try {
    process.kill(pid, 0)
    return false
  } catch {
    return true
  }
}

describe("shutdown signals", () => {
  it("a SIGTERM to the whole process group under npm, seen after npm's death was: one graceful stop, not a second-signal exit", async () => {
    // The parent stands for npm: it starts the tool with npm's environment and stays.
    const parent = spawn(
      process.execPath,
      [
        "-e",
        `require("node:child_process").spawn(process.execPath, ["--import", "tsx", ${JSON.stringify(child)}], { stdio: "inherit", env: { ...process.env, npm_lifecycle_event: "svc-batch" } }); setInterval(() => {}, 1000)`
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] }
    )
    let out = ""
    let err = ""
    parent.stdout.on("data", (d) => (out += d))
    parent.stderr.on("data", (d) => (err += d))
    while (!out.includes("ready")) await new Promise((r) => setTimeout(r, 20))
    const tool = Number(execFileSync("pgrep", ["-P", String(parent.pid)], { encoding: "utf8" }).trim())
    // While the tool's loop is busy: npm dies of the signal, and the tool gets the same one. When
    // the loop runs again, the orphan watch (a timer) comes before the signal's handler.
    parent.kill("SIGKILL")
    process.kill(tool, "SIGTERM")
    while (!gone(tool)) await new Promise((r) => setTimeout(r, 50))
    expect(err).toContain("SIGTERM: stopping")
    expect(err).not.toContain("second SIGTERM")
    expect(out).toContain("stopped gracefully")
  }, 30_000)
})
