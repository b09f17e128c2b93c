/**
 * Where paths on the command line are taken from: the current directory for the bin, the directory
 * npm was started in for `npm run svc-batch -- …` (npm itself moves to the package root), and the
 * package root for `npm start` (its job path is the package's). A missing job file names the
 * directory it was looked for in.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "")
const clean = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined, NO_COLOR: undefined }

/** Runs `npm <args>` in `cwd`, collecting what it prints. */
const npm = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const env: Record<string, string | undefined> = { ...process.env }
    delete env.SVC_BASE_URL
    delete env.SVC_API_KEY
    const child = spawn("npm", ["--silent", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("exit", (code) => resolve({ code, out, err }))
  })

/** A moderation job `nightly.yaml` in a new directory, reading `posts.csv` beside it. */
const jobDir = () => {
  const dir = tempDir()
  writeFileSync(
    join(dir, "nightly.yaml"),
    "name: nightly\npipeline: moderation\ninput:\n  path: missing.csv\n  id: id\noutput:\n  path: out.csv\nfields:\n  text: [body]\n"
  )
  writeFileSync(
    join(dir, "posts.csv"),
    "id,body\n1,A quiet walk by the river.\n2,The meeting moves to Thursday.\n3,Green tea is good.\n"
  )
  return dir
}

describe("paths on the command line", () => {
  it("the bin: a missing job file is exit 2 with the directory it looked in, printed once", async () => {
    const dir = tempDir()
    const p = spawnCli(["plan", join(dir, "nightly.yaml")], clean)
    expect(await p.exited).toBe(2)
    expect(p.err().match(/no job file nightly\.yaml in /g)).toHaveLength(1)
    expect(p.err()).toContain(`no job file nightly.yaml in ${dir}`)
    expect(p.err()).not.toContain("must exist")
  })

  it("npm run svc-batch -- …: the job file and --input are taken from the directory npm was started in", async () => {
    const dir = jobDir()
    const r = await npm(
      ["--prefix", root, "run", "svc-batch", "--", "run", "nightly.yaml", "--input", "posts.csv", "--dry-run"],
      dir
    )
    expect(r.err).not.toContain("must exist")
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/moderate\s+chat\s+svc3-guard\s+3\s+0\s+3\b/)
  }, 60_000)

  it("npm run svc-batch -- …: a missing job file names the directory npm was started in, not the package root", async () => {
    const dir = tempDir()
    const r = await npm(["--prefix", root, "run", "svc-batch", "--", "plan", "nightly.yaml"], dir)
    expect(r.code).toBe(2)
    expect(r.err).toContain(`no job file nightly.yaml in ${dir}`)
  }, 60_000)

  it("npm start from a subfolder of the package still runs the package's jobs/demo-moderation.yaml", async () => {
    // --dry-run: the plan of the demo job (reads the sample corpus, sends and writes nothing).
    const r = await npm(["start", "--", "--dry-run"], join(root, "data"))
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/moderate\s+chat\s+svc3-guard\s+\d+/)
  }, 60_000)
})
