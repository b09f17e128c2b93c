/**
 * One job across 1, 2 and 4 workers (not a test): a moderation job of N distinct records run with
 * `run --cluster … --no-work` and k `svc-batch worker` processes (the installed bin, src/cli/bin.mjs
 * after `npm run build`, with its own node flags) against one emulator with no limit, on a throwaway
 * PostgreSQL (started here, as the tests start it). For each k: cold (every answer asked) and warm
 * (the same job again: every answer from the shared ledger), wall time of the coordinator's command
 * and CPU (user + sys) of each worker, beside the single-process run (SQLite ledger) of the same job.
 *   npm run bench:cluster [-- 20000] [--workers 1,2,4]
 * On a machine with fewer cores than workers, more workers share the same cores: read CPU per record
 * for the cost of the cluster machinery, records/s for what this machine gives.
 */
import { spawn } from "node:child_process"
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { startPostgres } from "../support/postgres.ts"
import { benchDir } from "./bench-dir.ts"
import { warnUnlessBuilt } from "./built-bin.ts"

const BIN = process.env.BENCH_BIN ?? new URL("../../src/cli/bin.mjs", import.meta.url).pathname
const KEY = "bench-key"
const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name)
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback
}
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 20_000)
const workerCounts = option("--workers", "1,2,4").split(",").map(Number)
const UNIT = Math.max(500, Math.ceil(N / 20))
const dir = benchDir("svc-cluster-bench-")
warnUnlessBuilt()

console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}; ${N.toLocaleString("en-US")} records, units of ${UNIT}`
)

const input = join(dir, "posts.jsonl")
{
  const out = createWriteStream(input)
  for (let i = 0; i < N; i++)
    out.write(`${JSON.stringify({ id: `p${i}`, text: `Post ${i} talks about topic ${i % 97} in town ${i % 31}.` })}\n`)
  await new Promise<void>((r) => out.end(() => r()))
}

const jobFile = (name: string, cluster: boolean) => {
  const at = join(dir, name)
  mkdirSync(at, { recursive: true })
  const path = join(at, "job.yaml")
  writeFileSync(
    path,
    [
      `name: ${name}`,
      "pipeline: moderation",
      "fields: { text: text }",
      `input: { path: ${input}, id: id }`,
      `output: { path: ${join(at, "out.jsonl")} }`,
      // Pinned far above what is reached, as for a service known to have no limit (no ramp measured here).
      "limits: { concurrency: 64, rpm: { svc3-guard: 6000000 } }",
      cluster ? `cluster: { unitRecords: ${UNIT} }` : "",
      ""
    ].join("\n")
  )
  return path
}

const emulator = await startEmulator({ apiKey: KEY })
const pg = await startPostgres()
const env = { ...process.env, SVC_BASE_URL: emulator.url, SVC_API_KEY: KEY }

/** CPU ms (user + sys) a live process has used, from /proc (clock ticks of 10 ms). */
const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** A command run to its end under /usr/bin/time: wall seconds and CPU ms. */
const timed = (commandArgs: ReadonlyArray<string>) =>
  new Promise<{ seconds: number; cpuMs: number; output: string }>((resolve, reject) => {
    const usage = join(dir, "time.txt")
    const t0 = performance.now()
    const child = spawn("/usr/bin/time", ["-f", "%U %S", "-o", usage, BIN, ...commandArgs], {
      stdio: ["ignore", "pipe", "pipe"],
      env
    })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    child.on("exit", (code) => {
      const seconds = (performance.now() - t0) / 1000
      if (code !== 0) return reject(new Error(`svc-batch ${commandArgs.join(" ")} exited ${code}:\n${output}`))
      const [user, sys] = readFileSync(usage, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number)
      resolve({ seconds, cpuMs: (user! + sys!) * 1000, output })
    })
  })

/** k workers, each ready (waiting for units) before it returns; `stop` gives each one's CPU ms. */
const startWorkers = async (url: string, k: number) => {
  const ws = await Promise.all(
    Array.from(
      { length: k },
      () =>
        new Promise<ReturnType<typeof spawn>>((resolve, reject) => {
          const w = spawn(BIN, ["worker", "--cluster", url, "--concurrency", "2", "--poll-ms", "50"], {
            stdio: ["ignore", "ignore", "pipe"],
            env
          })
          let err = ""
          w.stderr!.on("data", (d) => {
            err += d
            if (err.includes("waiting for units")) resolve(w)
          })
          w.on("exit", (code) => reject(new Error(`worker exited ${code}: ${err}`)))
        })
    )
  )
  const before = ws.map((w) => cpuOf(w.pid!))
  // What each worker says, from here on (for a phase that took far longer than it should).
  const said = ws.map(() => "")
  ws.forEach((w, i) => w.stderr!.on("data", (d) => (said[i] += d)))
  return {
    said,
    stop: async () => {
      const used = ws.map((w, i) => cpuOf(w.pid!) - before[i]!)
      await Promise.all(ws.map((w) => new Promise<void>((r) => (w.once("exit", () => r()), w.kill("SIGTERM")))))
      return used
    }
  }
}

const fmt = (x: number, digits = 0) => x.toLocaleString("en-US", { maximumFractionDigits: digits })
const row = (label: string, seconds: number, cpuMs: number, extra = "") =>
  console.log(
    `${label.padEnd(34)} ${fmt(N / seconds).padStart(7)} rec/s  ${fmt(cpuMs / N, 3).padStart(6)} CPU ms/record${extra}`
  )

// The single-process run first: the reference row (its own SQLite ledger beside the job file).
const single = jobFile("single", false)
const singleCold = await timed(["run", single])
row("single process, cold", singleCold.seconds, singleCold.cpuMs)
const singleWarm = await timed(["run", single])
row("single process, warm", singleWarm.seconds, singleWarm.cpuMs)

for (const k of workerCounts) {
  const url = await pg.database(`bench${k}`)
  const job = jobFile(`cluster${k}`, true)
  for (const phase of ["cold", "warm"] as const) {
    const workers = await startWorkers(url, k)
    const coordinator = await timed(["run", job, "--cluster", url, "--no-work"])
    const used = await workers.stop()
    const total = used.reduce((a, b) => a + b, 0)
    // A phase far slower than one process's (once: ~60 s more, units worked twice, cause not
    // found): what the coordinator and the workers said, to find it.
    const reference = phase === "cold" ? singleCold.seconds : singleWarm.seconds
    if (coordinator.seconds > 4 * reference + 5) {
      console.log(`  slow phase (${coordinator.seconds.toFixed(1)} s): the coordinator said:\n${coordinator.output}`)
      workers.said.forEach((text, i) => console.log(`  worker ${i + 1} said:\n${text}`))
    }
    row(
      `${k} worker${k > 1 ? "s" : ""}, ${phase}`,
      coordinator.seconds,
      total,
      ` (workers; per worker ${used.map((u) => fmt(u / 1000, 1)).join("/")} s CPU; coordinator ${fmt(coordinator.cpuMs / N, 3)} ms/record)`
    )
  }
}

await pg.stop()
await emulator.close()
