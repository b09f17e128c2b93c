#!/usr/bin/env -S node --max-old-space-size=256 --max-semi-space-size=16 --no-flush-bytecode
// The heap limit: a job streams (its live heap stays under ~50 MiB), but left to itself V8 sizes
// the heap to the machine and lets garbage pile up (cold 50k, report on: peak RSS 250–276 MiB).
// 256 and 16 MiB semi-spaces, chosen by `npm run bench:flags` (cold, report on, side by side):
// 0.638–0.667 CPU ms/record and 180–182 MiB peak, against 0.80 ms and 168–180 MiB with 8 MiB
// semi-spaces (they promote the records in progress into the old space: +20 % CPU in GC); a 512
// cap peaks at 194–198 MiB (over 200 MB), 32 MiB semi-spaces at 212 MiB.
// --no-flush-bytecode: V8 drops the bytecode of functions not run for a few collections, so a
// long job's code cache (written at its exit, code-cache.mjs) lacked its start-up: a 20-record
// run on the cache a 20k-record run wrote took 0.90 s, against 0.68 s (+2 MB peak RSS).
// Run as `node src/cli/bin.mjs`, pass them yourself.
// Entry of the `svc-batch` bin. Runs the compiled JavaScript in dist/ (built by `npm run build`,
// which `npm ci` / `npm install` run as `prepare`) when it is at least as new as every source file;
// otherwise the TypeScript sources through tsx, so an edited checkout never runs stale code.
import module from "node:module"
import { existsSync, readFileSync, realpathSync } from "node:fs"
import { dirname, join, sep } from "node:path"
import { fileURLToPath } from "node:url"
import { buildState } from "./build-freshness.mjs"

// Node ≥ 22.1 keeps compiled code between runs (start-up); Node 20 has no such cache.
module.enableCompileCache?.()

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

// `npm run svc-batch -- plan nightly.yaml` runs this file in the package root, not where it was
// typed; npm leaves that directory in INIT_CWD. For this package's own `svc-batch` script, go back
// there, so that paths on the command line (and the .env file) are the user's, as with the
// installed bin. `npm start` stays in the package root (its jobs/demo-moderation.yaml is relative
// to it), as does any other package's script that runs `svc-batch` (npm's usual rule).
const ownScript = () => {
  try {
    return realpathSync(process.env.npm_package_json) === realpathSync(join(root, "package.json"))
  } catch {
    return false
  }
}
if (
  process.env.npm_lifecycle_event === "svc-batch" &&
  process.env.INIT_CWD &&
  process.env.npm_package_json &&
  ownScript()
) {
  try {
    process.chdir(process.env.INIT_CWD)
  } catch {
    // The directory is gone: stay in the package root.
  }
}
// An installed package (under node_modules) is not edited in place: its dist/ is trusted without
// the walk over every source file (5–30 ms of each command's start).
const installed = root.split(sep).includes("node_modules")

const compiled = () => (installed ? existsSync(join(root, "dist", ".built")) : buildState(root) === "current")

/**
 * `--version` and `--help` answered without loading the command tree (start-up: a bare `node` and
 * a file read): the version from package.json, the help from the text the build wrote with the
 * same renderer the commands use (src/cli/help.ts). Anything else goes to the command.
 */
const quickAnswer = (args) => {
  if (args.length === 1 && args[0] === "--version")
    return `${JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version}\n`
  const help = (name) => {
    const file = join(root, "dist", "cli", "help", `${name}.txt`)
    return existsSync(file) ? readFileSync(file, "utf8") : undefined
  }
  const asksHelp = (a) => a === "--help" || a === "-h"
  if (args.length === 0 || (args.length === 1 && asksHelp(args[0]))) return help("index")
  if (args.length === 2 && asksHelp(args[1]) && /^[a-z]+$/.test(args[0])) return help(args[0])
  return undefined
}

/**
 * Whom a command's code cache is for: the kind of job it works on (the job file's `pipeline:` and
 * stage lines, e.g. `- embed:`), so that jobs of one kind share a cache and another kind has it
 * written again with its own code too (code-cache.mjs). A hint only: a wrong one costs a rewrite
 * of the cache, never a wrong result.
 */
const cacheOwner = (job) => {
  if (job === undefined) return ""
  try {
    const lines = readFileSync(job, "utf8").match(/^\s*(?:pipeline:\s*\S+|- *[A-Za-z_]+ *:)/gm) ?? []
    return lines.map((l) => l.trim()).join(" ")
  } catch {
    return job
  }
}

if (compiled()) {
  const answer = quickAnswer(process.argv.slice(2))
  if (answer !== undefined) {
    process.stdout.write(answer)
    process.exit(0)
  }
  // One bundle (esbuild, tree-shaken, CommonJS) with a V8 code cache per command (code-cache.mjs):
  // the cache keeps what a command compiled, which an ES module's load on Node 20 cannot.
  const { runBundle } = await import("./code-cache.mjs")
  const args = process.argv.slice(2)
  const command = args.findIndex((a) => /^[a-z]+$/.test(a))
  runBundle(join(root, "dist", "cli", "main.cjs"), args[command] ?? "none", cacheOwner(args[command + 1]))
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("./main.ts")
}
