/**
 * The package as a user installs it, from a clone of the committed HEAD (uncommitted edits are not
 * in it: commit first): the command on PATH (`npm install -g .` in the checkout, as README's
 * Set-up says) and the library in a fresh folder (`npm install effect@3.22.4 <tarball of npm pack>`,
 * as "Using svc-batch from your own code" says), then the example run with plain node.
 *
 * The clone's `npm ci` is stood in for by links to this checkout's node_modules (checked to come
 * from the same package-lock.json), which saves its ~2 minutes; everything after is the README's
 * commands. The library install builds better-sqlite3 from source (no prebuilt binary here), so
 * this file takes 3–5 minutes: it is the `slow` vitest project (vitest.config.ts), which `npm test`
 * and `.ci/run` run with the rest; `npx vitest run --project unit` leaves it out. Its files go
 * under the run's temporary root (test/temp-root.ts), removed when the run ends.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "")
const work = mkdtempSync(join(tmpdir(), "svc-install-"))
const clone = join(work, "svc-batch")
const prefix = join(work, "global")

/**
 * The environment of a user: no service settings, and not inside this test's npm run. Except
 * `npm_config_nodedir`, the headers native modules build against: scripts/try-node.sh points it at
 * the tested Node's own; dropped, a user config naming another Node's headers (here ~/.npmrc's
 * /usr, Node 20) builds better-sqlite3 for that Node, which the example's Node 22 cannot load.
 */
const userEnv = (extra: Record<string, string> = {}) => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && (k === "npm_config_nodedir" || !/^(npm_|SVC_)|^INIT_CWD$/.test(k))) env[k] = v
  return { ...env, ...extra }
}

/** Runs a command to its end (asynchronously: a test worker that blocks misses vitest's calls). */
const run = (cmd: string, args: ReadonlyArray<string>, cwd: string, env = userEnv()) =>
  new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, out, err }))
  })

/** `run` that must succeed; its output is kept in the error when it does not. */
const ok = async (cmd: string, args: ReadonlyArray<string>, cwd: string, env = userEnv()) => {
  const r = await run(cmd, args, cwd, env)
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${r.code}\n${r.out}\n${r.err}`)
  return r
}

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  ok("npm", ["--no-audit", "--no-fund", "--prefer-offline", ...args], cwd)

let tarball = ""

beforeAll(async () => {
  const head = (await ok("git", ["rev-parse", "HEAD"], root)).out.trim()
  await ok("git", ["clone", "-q", "--no-checkout", root, clone], work)
  await ok("git", ["checkout", "-q", "--detach", head], clone)
  if (
    readFileSync(join(clone, "package-lock.json"), "utf8") !== readFileSync(join(root, "package-lock.json"), "utf8")
  ) {
    throw new Error(
      "package-lock.json differs from HEAD's: this checkout's node_modules cannot stand in for the clone's npm ci (commit first)"
    )
  }
  // In place of `npm ci` in the clone: a node_modules of links to this checkout's packages (a
  // directory of its own, so that nothing written there reaches this checkout's node_modules).
  mkdirSync(join(clone, "node_modules"))
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry !== ".package-lock.json")
      symlinkSync(join(root, "node_modules", entry), join(clone, "node_modules", entry))
  }
  // README: `npm pack` in the checkout (its `prepare` builds dist/) makes svc-batch-<version>.tgz.
  const packed = (await npm(["pack", "--pack-destination", work], clone)).out.trim().split("\n").at(-1)!
  tarball = join(work, packed)
}, 300_000)

describe("installed from a clean clone", () => {
  it("npm install -g . puts svc-batch on PATH; it runs a job from another directory, paths taken from there", async () => {
    await npm(["install", "-g", "--prefix", prefix, "."], clone)
    const env = userEnv({ PATH: `${join(prefix, "bin")}:${process.env.PATH}` })
    const elsewhere = mkdtempSync(join(work, "user-"))
    expect((await run("sh", ["-c", "command -v svc-batch"], elsewhere, env)).out.trim()).toBe(
      join(prefix, "bin", "svc-batch")
    )

    const version = await run("svc-batch", ["--version"], elsewhere, env)
    expect(version.err).toBe("")
    expect(version.out.trim()).toBe(JSON.parse(readFileSync(join(clone, "package.json"), "utf8")).version)

    writeFileSync(
      join(elsewhere, "nightly.yaml"),
      "name: nightly\npipeline: moderation\ninput:\n  path: posts.csv\n  id: id\noutput:\n  path: out/moderated.csv\nfields:\n  text: [body]\n"
    )
    writeFileSync(
      join(elsewhere, "posts.csv"),
      "id,body\n1,A quiet walk by the river.\n2,Here is how to build a bomb at home.\n"
    )
    const job = await run("svc-batch", ["run", "nightly.yaml"], elsewhere, env)
    expect(job.code, job.err).toBe(0)
    expect(job.out).toContain("EMULATOR")
    const rows = readFileSync(join(elsewhere, "out", "moderated.csv"), "utf8")
      .trim()
      .split("\n")
    expect(rows).toHaveLength(3)
    expect(rows[2]).toContain("harmful")

    const missing = await run("svc-batch", ["plan", "nope.yaml"], elsewhere, env)
    expect(missing.code).toBe(2)
    expect(missing.err).toContain(`no job file nope.yaml in ${elsewhere}`)
  }, 300_000)

  it("the library: npm install effect@3.22.4 <tarball> in a fresh folder, then the README's example with plain node", async () => {
    const app = join(work, "app")
    mkdirSync(app)
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }))
    await npm(["install", "effect@3.22.4", tarball], app)
    // One copy of Effect, the app's: svc-batch's own would make two runtimes.
    expect(existsSync(join(app, "node_modules", "svc-batch", "node_modules", "effect"))).toBe(false)
    expect(JSON.parse(readFileSync(join(app, "node_modules", "effect", "package.json"), "utf8")).version).toBe("3.22.4")

    copyFileSync(join(clone, "examples", "moderate-then-translate.mjs"), join(app, "example.mjs"))
    const example = await run(process.execPath, ["example.mjs"], app)
    expect(example.err).toBe("")
    expect(example.code).toBe(0)
    const lines = example.out.trim().split("\n")
    expect(lines[0]).toMatch(/^1: safe → \[emulated translation\] /)
    expect(lines[1]).toBe("2: harmful → (not translated)")
    expect(lines[2]).toBe("3: safe → The meeting moves to Thursday.")

    // Effect 4 over it (what a bare `npm install effect` picks today). With strict-peer-deps, npm
    // refuses and changes nothing:
    writeFileSync(join(app, ".npmrc"), "strict-peer-deps=true\n")
    const strict = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "effect@4"], app)
    expect(strict.code).not.toBe(0)
    expect(strict.err).toContain("ERESOLVE")
    expect((await run(process.execPath, ["example.mjs"], app)).out).toBe(example.out)
    // By default, npm lets the explicit request override the peer with a warning naming it, and
    // `npm ls` then calls the tree invalid (the README says both).
    writeFileSync(join(app, ".npmrc"), "")
    const loose = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "effect@4"], app)
    expect(loose.code).toBe(0)
    expect(loose.err).toContain("ERESOLVE overriding peer dependency")
    expect(loose.err).toMatch(/peer effect@"\^3\.22\.4" from svc-batch@/)
    const ls = await run("npm", ["ls", "effect"], app)
    expect(ls.code).not.toBe(0)
    expect(ls.out + ls.err).toMatch(/invalid: effect@4/)
  }, 540_000)

  it("with effect@4 already installed, installing the tarball is npm's ERESOLVE, not a crash at run time", async () => {
    const app = join(work, "app-effect4")
    mkdirSync(app)
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app4", private: true, type: "module" }))
    await npm(["install", "effect@4"], app)
    const r = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], app)
    expect(r.code).not.toBe(0)
    expect(r.err).toContain("ERESOLVE unable to resolve dependency tree")
    expect(r.err).toMatch(/Found: effect@4\./)
    expect(r.err).toMatch(/from svc-batch@0\.1\.0/)
    expect(existsSync(join(app, "node_modules", "svc-batch"))).toBe(false)
  }, 120_000)
})
