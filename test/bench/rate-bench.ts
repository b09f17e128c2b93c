/**
 * Rate-discovery benchmark (not a test): a job with NO `limits.rpm` against the embedded emulator
 * limited to 600, 3,000 and 12,000 requests/min (token bucket, burst one second's worth, latency
 * 100 ± 50 ms, or --latency-ms N: N ± N/2), each for `--seconds` (default 180) of wall time. The
 * emulator runs in this process and logs every answer; the job runs as its own `svc-batch run` process, as a user would run it,
 * and is stopped (SIGTERM, then killed) when the time is up.
 *   npm run bench:rate [-- --seconds 90] [-- --latency-ms 0] [-- 600 3000 12000]
 * Reported per limit: the accepted rate after the first minute as a share of the limit (the
 * discovery's steady state; with --seconds ≤ 60 the whole run is used, and the table says so),
 * the 429s as a share of all requests over the whole run (the start included), and the rate the
 * run reported for pinning.
 */
import { spawn } from "node:child_process"
import { createWriteStream, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { benchDir } from "./bench-dir.ts"
import { warnUnlessBuilt } from "./built-bin.ts"

const BIN = new URL("../../src/cli/bin.mjs", import.meta.url).pathname
warnUnlessBuilt()
const KEY = "bench-key"
const args = process.argv.slice(2)
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  if (at < 0) return { value: fallback, at }
  const value = Number(args[at + 1])
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} takes a number`)
  return { value, at }
}
const secondsFlag = flag("--seconds", 180)
const latencyFlag = flag("--latency-ms", 100)
const seconds = secondsFlag.value
const latencyMs = latencyFlag.value
if (seconds <= 0) throw new Error("--seconds takes a positive number")
const limits = args
  .filter((a, i) => !a.startsWith("-") && i !== secondsFlag.at + 1 && i !== latencyFlag.at + 1)
  .map(Number)
const rpms = limits.length > 0 ? limits : [600, 3000, 12_000]
const warmup = seconds > 60 ? 60 : 0

const writeCorpus = async (path: string, n: number) => {
  const out = createWriteStream(path)
  for (let i = 0; i < n; i++) {
    const line = `${JSON.stringify({ id: `r${i}`, text: `Note ${i}: the garden is lovely in spring.` })}\n`
    if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => out.end(() => r()))
}

/** Runs the job until it ends or `seconds` pass; gives its stdout. */
const runFor = (job: string, url: string, state: string) =>
  new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [BIN, "run", job, "--state", state], {
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, SVC_BASE_URL: url, SVC_API_KEY: KEY }
    })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    const stopAt = setTimeout(() => child.kill("SIGTERM"), seconds * 1000)
    const killAt = setTimeout(() => child.kill("SIGKILL"), seconds * 1000 + 15_000)
    child.on("exit", () => {
      clearTimeout(stopAt)
      clearTimeout(killAt)
      resolve(stdout)
    })
  })

const dir = benchDir("svc-rate-bench-")
const rows: Array<string> = []
for (const rpm of rpms) {
  const log: Array<{ status: number; at: number }> = []
  const emu = await startEmulator({
    apiKey: KEY,
    rpm,
    latencyMs,
    jitterMs: Math.floor(latencyMs / 2),
    onRequest: (e) => log.push({ status: e.status, at: performance.now() })
  })
  const input = join(dir, `rate-${rpm}.jsonl`)
  // More records than the limit allows in the time: the run is still going when it is stopped.
  await writeCorpus(input, Math.ceil((rpm / 60) * seconds * 1.5) + 100)
  const job = join(dir, `rate-${rpm}.yaml`)
  writeFileSync(
    job,
    `name: rate-${rpm}\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: ${join(dir, `rate-${rpm}.out.jsonl`)}\nfields:\n  text: text\nreport:\n  enabled: false\nlimits:\n  concurrency: 32\n`
  )
  const stdout = await runFor(job, emu.url, join(dir, `rate-${rpm}.ledger.sqlite`))
  await emu.close()
  if (log.length === 0) throw new Error(`no request reached the emulator at ${rpm}/min:\n${stdout}`)
  const t0 = log[0]!.at
  const end = log[log.length - 1]!.at
  const from = t0 + warmup * 1000
  const okAfter = log.filter((e) => e.status === 200 && e.at >= from).length
  const window = (end - from) / 1000
  const share = okAfter / window / (rpm / 60)
  const r429 = log.filter((e) => e.status === 429).length
  const pinned = stdout.match(/learnt ~(\d+) requests\/min/)?.[1]
  rows.push(
    `| ${rpm.toLocaleString("en")} | ${((end - t0) / 1000).toFixed(0)} s | ${warmup > 0 ? `${warmup}–${((end - t0) / 1000).toFixed(0)} s` : "whole run"} | ${((okAfter / window) * 60).toFixed(0)} req/min = **${share.toFixed(3)}** | ${r429} of ${log.length} = **${((100 * r429) / log.length).toFixed(2)} %** | ${pinned ?? "none (no 429 met)"} |`
  )
  console.error(rows[rows.length - 1])
}

console.log(
  `\nrate discovery (no limits.rpm, concurrency 32, emulator latency ${latencyMs} ± ${Math.floor(latencyMs / 2)} ms, burst 1 s) — ${seconds} s per limit; ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}`
)
console.log(
  "| emulator limit (req/min) | run | measured over | accepted rate ÷ limit | 429s (whole run) | rate found (printed after the run) |\n|---|---|---|---|---|---|"
)
for (const r of rows) console.log(r)
