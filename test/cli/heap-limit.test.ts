/** The bin, run as an installed command (its shebang), caps V8's heap for a streaming job. */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"

const BIN = new URL("../../src/cli/bin.mjs", import.meta.url).pathname

describe("svc-batch's heap", () => {
  it("the bin runs node with --max-old-space-size=256, --max-semi-space-size=16 (V8 would size the heap to the machine) and --no-flush-bytecode", async () => {
    const env: Record<string, string | undefined> = { ...process.env }
    delete env.SVC_BASE_URL
    delete env.SVC_API_KEY
    const child = spawn(BIN, ["emulator", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"], env })
    try {
      await new Promise<void>((resolve, reject) => {
        let out = ""
        child.stdout.on("data", (d) => {
          out += d
          if (out.includes("listening on")) resolve()
        })
        child.on("exit", (code) => reject(new Error(`exited ${code}`)))
      })
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\u0000")
      expect(argv).toContain("--max-old-space-size=256")
      expect(argv).toContain("--max-semi-space-size=16")
      expect(argv).toContain("--no-flush-bytecode")
      const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
        scripts: Record<string, string>
      }
      for (const script of ["svc-batch", "start"])
        expect(pkg.scripts[script]).toContain("--max-old-space-size=256 --max-semi-space-size=16 --no-flush-bytecode")
    } finally {
      child.kill("SIGTERM")
    }
  })
})
