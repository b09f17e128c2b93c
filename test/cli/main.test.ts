/** The `svc-batch` command line itself, as a real process: what a bad command line prints and its exit code. */
import { describe, expect, it } from "@effect/vitest"
import { dirname, join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const demoJob = new URL("../../jobs/demo-moderation.yaml", import.meta.url).pathname
const clean = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined, NO_COLOR: undefined }
const ESC = "\u001b["

describe("svc-batch command line", () => {
  it("a missing job file: exit 2, the reason in words, printed once", async () => {
    const missing = join(tempDir(), "nope.yaml")
    const p = spawnCli(["run", missing], clean)
    expect(await p.exited).toBe(2)
    expect(p.err()).not.toContain("[object Object]")
    expect(p.err().match(/no job file nope\.yaml in /g)).toHaveLength(1)
    expect(p.err()).toContain(`no job file nope.yaml in ${dirname(missing)}`)
  })

  it("an unknown flag: exit 2, naming the flag", async () => {
    const p = spawnCli(["run", demoJob, "--concurency", "4"], clean)
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain("--concurency")
    expect(p.err()).not.toContain("[object Object]")
  })

  it("help written to a pipe has no colour codes", async () => {
    const p = spawnCli(["run", "--help"], clean)
    expect(await p.exited).toBe(0)
    expect(p.out()).toContain("Usage: svc-batch run [options] <job-file>")
    expect(p.out()).not.toContain(ESC)
  })

  it("a bad flag value: exit 2, the allowed values printed once, without colour codes on a pipe", async () => {
    const p = spawnCli(["run", demoJob, "--cache", "sometimes"], clean)
    expect(await p.exited).toBe(2)
    expect(p.err().match(/read-write, refresh, off/g)).toHaveLength(1)
    expect(p.err()).not.toContain(ESC)
  })
})
