/**
 * Start-up benchmark (not a test): wall time and peak RSS of `svc-batch --help` and `svc-batch
 * status <job>`, median of 5, for the compiled bundle (what the bin runs after `npm run build`)
 * and the TypeScript sources through tsx (what it runs when a source is newer than the build);
 * and the size of each command's code cache.
 *   npm run bench:startup
 */
import { execFileSync, spawnSync } from "node:child_process"
import { cpus } from "node:os"
import { readdirSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { benchDir } from "./bench-dir.ts"

const root = new URL("../..", import.meta.url).pathname
const dir = benchDir("svc-startup-")
writeFileSync(join(dir, "in.jsonl"), '{"id":"a","text":"hello"}\n')
const job = join(dir, "job.yaml")
writeFileSync(
  job,
  "name: s\npipeline: moderation\nfields: { text: text }\ninput: { path: in.jsonl, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n"
)
const env = { ...process.env }
delete env.SVC_BASE_URL
delete env.SVC_API_KEY
execFileSync(process.execPath, [join(root, "src/cli/bin.mjs"), "run", job], { stdio: "ignore", env })

const measure = (args: ReadonlyArray<string>) => {
  const runs = Array.from({ length: 5 }, () => {
    const t0 = performance.now()
    const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, ...args], { encoding: "utf8" })
    return { ms: performance.now() - t0, kib: Number(r.stderr.trim().split("\n").at(-1)) }
  }).sort((a, b) => a.ms - b.ms)
  return `${Math.round(runs[2]!.ms)} ms, ${Math.round(runs[2]!.kib / 1024)} MiB`
}

console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}`)
// What a user types: the bin (built), against a bare node, interleaved so load hits all alike.
const bin = join(root, "src/cli/bin.mjs")
const cases: ReadonlyArray<[string, ReadonlyArray<string>]> = [
  ["node -e 0", ["-e", "0"]],
  ["svc-batch --version", [bin, "--version"]],
  ["svc-batch --help", [bin, "--help"]],
  ["svc-batch run --help", [bin, "run", "--help"]],
  ["svc-batch runs <job>", [bin, "runs", job]],
  ["svc-batch status <job>", [bin, "status", job]]
]
const times = new Map<string, Array<number>>(cases.map(([name]) => [name, []]))
for (let round = 0; round < 9; round++)
  for (const [name, args] of cases) {
    const t0 = performance.now()
    spawnSync(process.execPath, args, { stdio: "ignore" })
    times.get(name)!.push(performance.now() - t0)
  }
const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const bare = median(times.get("node -e 0")!)
for (const [name] of cases) {
  const ms = median(times.get(name)!)
  console.log(`${name.padEnd(24)} ${Math.round(ms)} ms  (${(ms / bare).toFixed(2)}× bare node)`)
}
const bundle = join(root, "dist/cli/main.cjs")
const tsx = [join(root, "node_modules/tsx/dist/cli.mjs"), join(root, "src/cli/main.ts")]
// The bundle run directly: no code cache (the bin's, src/cli/code-cache.mjs, is measured above).
console.log(`--help   bundle ${measure([bundle, "--help"])};  tsx sources ${measure([...tsx, "--help"])}`)
console.log(`status   bundle ${measure([bundle, "status", job])};  tsx sources ${measure([...tsx, "status", job])}`)

// The code cache each command keeps beside the bundle (written by its first successful run above).
const caches = join(root, "dist/cli/cache")
for (const file of readdirSync(caches).filter((f) => f.endsWith(".v8")))
  console.log(`code cache ${file.padEnd(24)} ${(statSync(join(caches, file)).size / 1e6).toFixed(2)} MB`)
