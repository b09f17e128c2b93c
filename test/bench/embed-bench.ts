/**
 * Embedding backfill benchmark (not a test), the goals of "Performance as installed" for vectors:
 *   npm run bench:embed [-- --cold 20000] [--pairs 3] [--reruns 5000,100000]
 * 1. cold: `--cold` distinct short records embedded into Parquet (a vector(1536) column) and a
 *    sqlite-vec store by the installed bin (src/cli/bin.mjs, after `npm run build`), interleaved
 *    with the peer (test/bench/peers/embed-peer.mjs: fetch + a p-limit-style limiter + sqlite-vec,
 *    no ledger, no Parquet), `--pairs` times, each from scratch; medians;
 * 2. no-op rerun: for each `--reruns` size, a cold run, then the same command again three times
 *    (0 requests, 0 store rows rewritten, the Parquet output written again); median.
 * Both sides talk to one emulator in this process (no limit, no latency), at concurrency 64; the
 * job pins `limits.rpm` for the model, as a user would for a service known to have no limit, so
 * rate discovery's ramp is not measured here (`bench:rate` does). Wall time and CPU (user + sys)
 * of each child come from /usr/bin/time.
 */
import { spawn } from "node:child_process"
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { benchDir } from "./bench-dir.ts"
import { warnUnlessBuilt } from "./built-bin.ts"

const BIN = new URL("../../src/cli/bin.mjs", import.meta.url).pathname
const PEER = new URL("./peers/embed-peer.mjs", import.meta.url).pathname
const KEY = "bench-key"
const CONCURRENCY = 64
const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name)
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback
}
const coldRecords = Number(option("--cold", "20000"))
const pairs = Number(option("--pairs", "3"))
const reruns = option("--reruns", "5000,100000")
  .split(",")
  .filter((s) => s !== "")
  .map(Number)
const dir = benchDir("svc-embed-bench-")
warnUnlessBuilt()

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`
)

const corpus = async (n: number) => {
  const path = join(dir, `docs-${n}.jsonl`)
  if (existsSync(path)) return path
  const out = createWriteStream(path)
  for (let i = 0; i < n; i++)
    out.write(
      `${JSON.stringify({ id: `d${i}`, body: `Document ${i} is about topic ${i % 97} near place ${i % 31}.` })}\n`
    )
  await new Promise<void>((r) => out.end(() => r()))
  return path
}

/**
 * A job like jobs/embedding-backfill.yaml without its moderation stage: embed → Parquet + sqlite-vec,
 * in a folder of its own (its ledger is `.svc-batch/` beside the job file), made afresh.
 */
const jobFile = (name: string, input: string) => {
  const at = join(dir, name)
  rmSync(at, { recursive: true, force: true })
  mkdirSync(at)
  const path = join(at, "job.yaml")
  writeFileSync(
    path,
    [
      `name: ${name}`,
      `input: { path: ${input}, id: id }`,
      `output: { path: ${join(at, "out.parquet")} }`,
      "stages:",
      "  - embed: { field: body }",
      `store: { path: ${join(at, "vectors.sqlite")}, text: body, cleanup: full }`,
      `limits: { concurrency: ${CONCURRENCY}, rpm: { svc3-embedding: 6000000 } }`,
      ""
    ].join("\n")
  )
  return path
}

interface Measured {
  readonly seconds: number
  readonly cpuMs: number
  readonly stdout: string
}

/** Runs a command under /usr/bin/time: wall seconds, user + sys CPU of the child (and its children). */
const timed = (command: string, commandArgs: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<Measured>((resolve, reject) => {
    const usage = join(dir, "time.txt")
    const t0 = performance.now()
    const child = spawn("/usr/bin/time", ["-f", "%U %S", "-o", usage, command, ...commandArgs], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("exit", (code) => {
      const seconds = (performance.now() - t0) / 1000
      if (code !== 0) return reject(new Error(`${command} exited ${code}:\n${stdout}\n${stderr}`))
      const [user, sys] = readFileSync(usage, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number)
      resolve({ seconds, cpuMs: (user! + sys!) * 1000, stdout })
    })
  })

const emulator = await startEmulator({ apiKey: KEY })
const env = { SVC_BASE_URL: emulator.url, SVC_API_KEY: KEY }
// The bin as an installed command (its shebang's node flags apply), as a user runs it.
const runBin = (job: string) => timed(BIN, ["run", job], env)
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const requests = (stdout: string) => Number(stdout.match(/requests (\d+)/)?.[1] ?? NaN)
const rate = (n: number, m: Measured) => n / m.seconds
const perRecord = (n: number, m: Measured) => m.cpuMs / n
const fmt = (x: number, digits = 0) => x.toLocaleString("en-US", { maximumFractionDigits: digits })

if (coldRecords > 0 && pairs > 0) {
  const input = await corpus(coldRecords)
  const bin: Array<Measured> = []
  const peer: Array<Measured> = []
  for (let p = 0; p < pairs; p++) {
    const b = await runBin(jobFile("cold", input))
    if (requests(b.stdout) !== coldRecords)
      throw new Error(`cold run sent ${requests(b.stdout)} requests:\n${b.stdout}`)
    bin.push(b)
    const store = join(dir, "peer.sqlite")
    for (const f of [store, `${store}-wal`, `${store}-shm`]) rmSync(f, { force: true })
    peer.push(await timed(process.execPath, [PEER, emulator.url, KEY, input, store, String(CONCURRENCY)]))
    console.log(
      `  pair ${p + 1}: svc-batch ${fmt(rate(coldRecords, b))} rec/s ${fmt(perRecord(coldRecords, b), 3)} CPU ms/rec; peer ${fmt(rate(coldRecords, peer[p]!))} rec/s ${fmt(perRecord(coldRecords, peer[p]!), 3)} CPU ms/rec`
    )
  }
  const bRate = median(bin.map((m) => rate(coldRecords, m)))
  const pRate = median(peer.map((m) => rate(coldRecords, m)))
  const bCpu = median(bin.map((m) => perRecord(coldRecords, m)))
  const pCpu = median(peer.map((m) => perRecord(coldRecords, m)))
  console.log(
    `cold ${fmt(coldRecords)} records (median of ${pairs} interleaved pairs): svc-batch ${fmt(bRate)} rec/s, ${fmt(bCpu, 3)} CPU ms/record; peer ${fmt(pRate)} rec/s, ${fmt(pCpu, 3)} CPU ms/record → ${(bRate / pRate).toFixed(2)}× the peer's rate (goal ≥ 0.9), ${(bCpu / pCpu).toFixed(2)}× its CPU (goal ≤ 1.3)`
  )
}

for (const n of reruns) {
  const job = jobFile(`rerun-${n}`, await corpus(n))
  const cold = await runBin(job)
  const again: Array<Measured> = []
  for (let r = 0; r < 3; r++) {
    const m = await runBin(job)
    if (requests(m.stdout) !== 0) throw new Error(`the rerun sent ${requests(m.stdout)} requests:\n${m.stdout}`)
    again.push(m)
  }
  const seconds = median(again.map((m) => m.seconds))
  const cpu = median(again.map((m) => perRecord(n, m)))
  console.log(
    `no-op rerun ${fmt(n)} records (median of 3, 0 requests; cold ${cold.seconds.toFixed(1)} s): ${seconds.toFixed(2)} s = ${fmt(n / seconds)} rec/s, ${fmt(cpu, 3)} CPU ms/record`
  )
}
await emulator.close()
