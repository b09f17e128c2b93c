/**
 * Rate discovery's ramp (not a test; issue 29, goal 2): what a job with NO `limits.rpm` costs the
 * user against the one-liner they would have written, through the built bin as installed.
 * - limited: a one-minute job (one minute's worth of records) at 3,000 and 6,000 requests/min
 *   (emulator token bucket, burst one second's worth, latency 100 ± 50 ms), and at 3,000/min with
 *   5 ± 2 ms (probing grows per round trip: a fast service is probed faster), the default
 *   concurrency: accepted rate from the first request to the last ÷ the limit, the first 5 s alone,
 *   and the 429s as a share of all requests;
 * - cold: N distinct records (default 50,000) against an unlimited emulator with no latency, with
 *   no rpm and with `limits.rpm` pinned far above what is reached (no ramp), interleaved: the time
 *   the ramp loses (best of two each);
 * - small: a 20-record job against an unlimited emulator (latency 100 ± 50 ms), median of 5 wall
 *   times interleaved with the SDK + p-limit peer script (test/bench/peers/sdk-plimit-peer.mjs);
 *   BENCH_BEFORE_BIN=<another checkout's src/cli/bin.mjs> interleaves that bin too (before/after).
 *   npm run bench:ramp [-- limited|cold|small] [-- --cold 50000]
 */
import { spawn } from "node:child_process"
import { createWriteStream, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { benchDir } from "./bench-dir.ts"

const root = new URL("../..", import.meta.url).pathname
const BIN = process.env.BENCH_BIN ?? join(root, "src/cli/bin.mjs")
const PEER = join(root, "test/bench/peers/sdk-plimit-peer.mjs")
const KEY = "bench-key"
const args = process.argv.slice(2)
const coldAt = args.indexOf("--cold")
const coldN = coldAt >= 0 ? Number(args[coldAt + 1]) : 50_000
const which = args.filter((a, i) => !a.startsWith("-") && (coldAt < 0 || i !== coldAt + 1))
const wanted = (name: string) => which.length === 0 || which.includes(name)
const dir = benchDir("svc-ramp-")
const loads: Array<number> = []
const sampleLoad = () => loads.push(loadavg()[0]!)

const writeCorpus = async (path: string, n: number, salt: string) => {
  const out = createWriteStream(path)
  for (let i = 0; i < n; i++) {
    const line = `${JSON.stringify({ id: `r${i}`, text: `Note ${salt} ${i}: the garden is lovely in spring.` })}\n`
    if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => out.end(() => r()))
}

const writeJob = (name: string, input: string, limits: string) => {
  const path = join(dir, `${name}.yaml`)
  writeFileSync(
    path,
    `name: ${name}\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: ${join(dir, `${name}.out.jsonl`)}\nfields:\n  text: text\nreport:\n  enabled: false\n${limits}`
  )
  return path
}

/** Runs a command to its end; gives its wall time in seconds. */
const run = (command: string, argv: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(command, argv, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    child.on("exit", (code) =>
      code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`${argv.join(" ")}: ${code}\n${stderr}`))
    )
  })
const BEFORE_BIN = process.env.BENCH_BEFORE_BIN
const runJob = (job: string, url: string, bin = BIN) =>
  run(bin, ["run", job, "--state", `${job}.sqlite`], { SVC_BASE_URL: url, SVC_API_KEY: KEY })
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rows: Array<string> = []
const row = (r: string) => {
  rows.push(r)
  console.error(r)
}

if (wanted("limited")) {
  for (const [rpm, latencyMs, jitterMs] of [
    [3000, 100, 50],
    [6000, 100, 50],
    [3000, 5, 2]
  ] as const) {
    sampleLoad()
    const log: Array<{ status: number; at: number }> = []
    const emu = await startEmulator({
      apiKey: KEY,
      rpm,
      latencyMs,
      jitterMs,
      onRequest: (e) => log.push({ status: e.status, at: performance.now() })
    })
    const name = `limited-${rpm}-${latencyMs}`
    const input = join(dir, `${name}.jsonl`)
    await writeCorpus(input, rpm, `l${rpm}-${latencyMs}`)
    await runJob(writeJob(name, input, ""), emu.url)
    await emu.close()
    const t0 = log[0]!.at
    const ok = log.filter((e) => e.status === 200)
    const span = (ok[ok.length - 1]!.at - t0) / 1000
    const perSecond = rpm / 60
    const first5 = ok.filter((e) => e.at < t0 + 5000).length / 5 / perSecond
    const r429 = log.filter((e) => e.status === 429).length
    row(
      `| no rpm, ${rpm.toLocaleString("en")}/min, latency ${latencyMs} ± ${jitterMs} ms, ${rpm.toLocaleString("en")} records | ${span.toFixed(1)} s | **${(ok.length / span / perSecond).toFixed(3)}** of the limit (first 5 s ${first5.toFixed(2)}) | ${r429} of ${log.length} = **${((100 * r429) / log.length).toFixed(2)} %** 429s |`
    )
  }
}

if (wanted("cold")) {
  const emu = await startEmulator({ apiKey: KEY })
  const times = { ramp: [] as Array<number>, pinned: [] as Array<number> }
  for (let pair = 0; pair < 2; pair++)
    for (const kind of pair === 0 ? (["pinned", "ramp"] as const) : (["ramp", "pinned"] as const)) {
      sampleLoad()
      const input = join(dir, `cold-${kind}-${pair}.jsonl`)
      await writeCorpus(input, coldN, `c${kind}${pair}`)
      const limits = kind === "pinned" ? `limits:\n  rpm:\n    "*": 100000000\n` : ""
      times[kind].push(await runJob(writeJob(`cold-${kind}-${pair}`, input, limits), emu.url))
    }
  await emu.close()
  // Best of each: other work on a shared machine only ever adds time.
  const ramp = Math.min(...times.ramp)
  const pinned = Math.min(...times.pinned)
  row(
    `| cold ${coldN.toLocaleString("en")} records, unlimited service, no latency | no rpm ${times.ramp.map((t) => t.toFixed(1)).join(" / ")} s | pinned rpm ${times.pinned.map((t) => t.toFixed(1)).join(" / ")} s | ramp loses **${(ramp - pinned).toFixed(1)} s = ${((100 * (ramp - pinned)) / pinned).toFixed(1)} %** (best of each) |`
  )
}

if (wanted("small")) {
  const emu = await startEmulator({ apiKey: KEY, latencyMs: 100, jitterMs: 50 })
  const times = { svc: [] as Array<number>, peer: [] as Array<number>, before: [] as Array<number> }
  for (let i = 0; i < 5; i++) {
    sampleLoad()
    const input = join(dir, `small-${i}.jsonl`)
    await writeCorpus(input, 20, `s${i}`)
    times.svc.push(await runJob(writeJob(`small-${i}`, input, ""), emu.url))
    if (BEFORE_BIN !== undefined) {
      const beforeInput = join(dir, `small-before-${i}.jsonl`)
      await writeCorpus(beforeInput, 20, `b${i}`)
      times.before.push(await runJob(writeJob(`small-before-${i}`, beforeInput, ""), emu.url, BEFORE_BIN))
    }
    const peerInput = join(dir, `small-peer-${i}.jsonl`)
    await writeCorpus(peerInput, 20, `p${i}`)
    times.peer.push(await run(process.execPath, [PEER, emu.url, KEY, peerInput, join(dir, `peer-${i}.out`), "32"]))
  }
  await emu.close()
  const svc = median(times.svc)
  const peer = median(times.peer)
  row(
    `| 20-record job, unlimited service, latency 100 ± 50 ms | svc-batch ${svc.toFixed(2)} s | SDK + p-limit ${peer.toFixed(2)} s | **${(svc / peer).toFixed(2)}×** (medians of 5, interleaved) |`
  )
  if (BEFORE_BIN !== undefined) {
    const before = median(times.before)
    row(
      `| 20-record job, before (${BEFORE_BIN}) | svc-batch ${before.toFixed(2)} s | SDK + p-limit ${peer.toFixed(2)} s | ${(before / peer).toFixed(2)}× (same runs, interleaved) |`
    )
  }
}

console.log(
  `\nramp (no limits.rpm; bin ${BIN.endsWith("bin.mjs") ? "as installed" : BIN}); ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`
)
for (const r of rows) console.log(r)
