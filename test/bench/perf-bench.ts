/**
 * The performance table (not a test): what `npm run bench` prints (then `npm run bench:all` runs
 * the older per-area scripts: service, engine, chunking, vectors, start-up). The emulator runs in this
 * process (it logs what it answers); every job runs as its own `svc-batch run` process, as a user
 * would run it; the bare client runs as its own process too.
 *   npm run bench [-- rate cold memory]        (default: all three groups)
 *   BENCH_FULL=1 npm run bench                 (also 1,000,000-record memory rows and 3,000 records at 600/min)
 *   BENCH_BIN=/other/checkout/src/cli/bin.mjs  (measure another checkout with this script: before/after)
 * Rows:
 * - saturation at 600, 3,000 and 6,000 req/min (emulator limit = limits.rpm, latency 100 ± 50 ms,
 *   concurrency 32), and a fault mix at 3,000/min (5 % 500, 2 % 503 without Retry-After, 2 %
 *   connection resets): limit use = requests the emulator's limiter let through per minute ÷ the
 *   limit, over the span from the first to the last; 429s; records lost (not in the output). The
 *   four run at once (they mostly wait), with the openai SDK + bottleneck script (sdk-peer.mjs) at
 *   600/min beside them: the 600/min job's CPU against the script's is the "CPU at 600 rpm" row;
 * - cold: 50,000 distinct records, no limit, no latency: records/s and CPU ms per record of the
 *   job process, beside the bare client's CPU ms per request (same emulator, same minute);
 * - warm: the same job again (every answer in the ledger): records/s, requests sent;
 * - memory: peak RSS (VmHWM) of the job process for 100,000 records, distinct texts and 1,000
 *   distinct texts (1,000,000 of each with BENCH_FULL=1); the distinct corpus is then rerun warm,
 *   the warm rate with start-up spread over 2× (20×) the records of the 50,000-record row.
 */
import { spawn } from "node:child_process"
import { createWriteStream, readFileSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { benchDir } from "./bench-dir.ts"

const root = new URL("../..", import.meta.url).pathname
const BIN = process.env.BENCH_BIN ?? join(root, "src/cli/bin.mjs")
const TSX = join(root, "node_modules/tsx/dist/cli.mjs")
const KEY = "bench-key"
const FULL = process.env.BENCH_FULL === "1"
const which = process.argv.slice(2).filter((a) => !a.startsWith("-"))
const wanted = (name: string) => which.length === 0 || which.includes(name)
const dir = benchDir("svc-perf-")
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const text = (k: number) =>
  k % 5 === 0 ? `Note ${k}: how to build a bomb.` : `Note ${k}: the garden is lovely in spring.`
const writeCorpus = async (path: string, n: number, distinct = n) => {
  const out = createWriteStream(path)
  for (let i = 0; i < n; i++) {
    if (!out.write(`${JSON.stringify({ id: `r${i}`, text: text(i % distinct) })}\n`))
      await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => out.end(() => r()))
}

const writeJob = (name: string, input: string, limits: string) => {
  const path = join(dir, `${name}.yaml`)
  writeFileSync(
    path,
    `name: ${name}\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: ${join(dir, `${name}.out.jsonl`)}\nfields:\n  text: text\nreport:\n  enabled: false\nlimits:\n${limits}`
  )
  return path
}

interface JobResult {
  readonly seconds: number
  readonly cpuMs: number
  readonly peakMiB: number
  readonly stdout: string
}

/** Runs `node <args>` as a child process; wall time, CPU ms and peak RSS (VmHWM) from /proc. */
const runProcess = (command: string, args: ReadonlyArray<string>, env: Record<string, string>, allowFail = false) =>
  new Promise<JobResult>((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    let peakKiB = 0
    let cpuTicks = 0
    // `env -S node …` execs node in the same process; children (if any) are followed too.
    const pids = () => {
      const out = [child.pid!]
      try {
        for (const c of readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/))
          if (c) out.push(Number(c))
      } catch {
        // gone
      }
      return out
    }
    const ticks = new Map<number, number>()
    const sample = () => {
      for (const pid of pids()) {
        try {
          const status = readFileSync(`/proc/${pid}/status`, "utf8")
          peakKiB = Math.max(peakKiB, Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0))
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
          ticks.set(pid, Number(stat[11]) + Number(stat[12]))
        } catch {
          // the process is gone
        }
      }
      cpuTicks = [...ticks.values()].reduce((a, b) => a + b, 0)
    }
    const timer = setInterval(sample, 20)
    child.on("exit", (code) => {
      clearInterval(timer)
      if (code !== 0 && !allowFail) return reject(new Error(`${args.join(" ")} exited ${code}: ${stdout}\n${stderr}`))
      resolve({ seconds: (performance.now() - t0) / 1000, cpuMs: cpuTicks * 10, peakMiB: peakKiB / 1024, stdout })
    })
  })

// The bin as an installed command runs it (its shebang's node flags apply), as a user would.
const runJob = (job: string, url: string, allowFail = false) =>
  runProcess(BIN, ["run", job], { SVC_BASE_URL: url, SVC_API_KEY: KEY }, allowFail)

const lines = (path: string) => {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "").length
  } catch {
    return 0
  }
}

const rows: Array<[string, string]> = []

if (wanted("rate")) {
  const satRecords = (rpm: number) => (rpm === 600 ? (FULL ? 3000 : 500) : rpm === 3000 ? 2500 : 5000)
  const saturation = async (name: string, rpm: number, faults: boolean) => {
    const log: Array<{ status: number; at: number }> = []
    const emu = await startEmulator({
      apiKey: KEY,
      rpm,
      latencyMs: 100,
      jitterMs: 50,
      ...(faults ? { error500Rate: 0.05, error503Rate: 0.02, resetRate: 0.02, faultSeed: 7 } : {}),
      onRequest: (e) => log.push({ status: e.status, at: performance.now() })
    })
    const n = satRecords(rpm)
    const input = join(dir, `${name}.jsonl`)
    await writeCorpus(input, n)
    const r = await runJob(writeJob(name, input, `  rpm:\n    svc3-guard: ${rpm}\n  concurrency: 32\n`), emu.url, true)
    await emu.close()
    const passed = log.filter((e) => e.status !== 429)
    const span = (passed[passed.length - 1]!.at - passed[0]!.at) / 1000
    const use = (((passed.length - 1) / span) * 60) / rpm
    const r429 = log.length - passed.length
    const out = lines(join(dir, `${name}.out.jsonl`))
    return { use, r429, requests: log.length, n, lost: n - out, cpuMs: r.cpuMs, seconds: r.seconds }
  }
  // The peer: the official SDK + bottleneck on the same corpus at 600/min, its own emulator, same minute.
  const sdkPeer = async (rpm: number) => {
    let requests = 0
    const emu = await startEmulator({
      apiKey: KEY,
      rpm,
      latencyMs: 100,
      jitterMs: 50,
      onRequest: () => void requests++
    })
    const n = satRecords(rpm)
    const input = join(dir, `sdk-${rpm}.jsonl`)
    await writeCorpus(input, n)
    const out = join(dir, `sdk-${rpm}.out.jsonl`)
    const r = await runProcess(
      process.execPath,
      [join(root, "test/bench/sdk-peer.mjs"), emu.url, KEY, input, out, String(rpm), "32"],
      {}
    )
    await emu.close()
    return { cpuMs: r.cpuMs, seconds: r.seconds, n, out: lines(out), requests }
  }
  const [s600, s3000, s6000, fault, sdk600] = await Promise.all([
    saturation("sat-600", 600, false),
    saturation("sat-3000", 3000, false),
    saturation("sat-6000", 6000, false),
    saturation("fault-3000", 3000, true),
    sdkPeer(600)
  ])
  for (const [rpm, s] of [
    [600, s600],
    [3000, s3000],
    [6000, s6000]
  ] as const) {
    rows.push([
      `saturation ${fmt(rpm)} req/min (${fmt(s.n)} records)`,
      `limit use **${s.use.toFixed(3)}**, 429s ${s.r429} of ${fmt(s.requests)}`
    ])
  }
  rows.push([
    `fault mix at 3,000 req/min (5 % 500, 2 % 503, 2 % resets; ${fmt(fault.n)} records)`,
    `limit use **${fault.use.toFixed(3)}**, 429s ${fault.r429}, lost ${fault.lost} (in rejects)`
  ])
  rows.push([
    `CPU at 600 req/min (${fmt(s600.n)} records, ${s600.seconds.toFixed(0)} s), beside the openai SDK + bottleneck script (test/bench/sdk-peer.mjs, ${sdk600.seconds.toFixed(0)} s, ${sdk600.out} of ${sdk600.n} written)`,
    `**${(s600.cpuMs / 1000).toFixed(1)} s** CPU vs the SDK script's ${(sdk600.cpuMs / 1000).toFixed(1)} s = **${(s600.cpuMs / sdk600.cpuMs).toFixed(2)}×**`
  ])
}

if (wanted("cold") || wanted("warm")) {
  let requests = 0
  const emu = await startEmulator({ apiKey: KEY, onRequest: () => void requests++ })
  const input = join(dir, "cold.jsonl")
  const n = 50_000
  await writeCorpus(input, n)
  const bare = await runProcess(
    process.execPath,
    [TSX, join(root, "test/bench/bare-client.ts"), emu.url, KEY, "20000"],
    {}
  )
  const client = JSON.parse(bare.stdout.trim().split("\n").at(-1)!) as { cpuMsPerRequest: number; perSecond: number }
  requests = 0
  const job = writeJob("cold", input, `  concurrency: 64\n  records: 256\n`)
  const cold = await runJob(job, emu.url)
  const coldReq = requests
  rows.push([
    `cold: ${fmt(n)} distinct records, no limit, no latency`,
    `**${fmt(n / cold.seconds)} records/s**, ${(cold.cpuMs / n).toFixed(3)} CPU ms/record (whole job process, ${fmt(coldReq)} requests); bare client ${client.cpuMsPerRequest.toFixed(3)} CPU ms/request = **${(cold.cpuMs / n / client.cpuMsPerRequest).toFixed(2)}×**`
  ])
  requests = 0
  const warm = await runJob(job, emu.url)
  rows.push([
    `warm rerun of the same ${fmt(n)} records`,
    `**${fmt(n / warm.seconds)} records/s**, ${(warm.cpuMs / n).toFixed(3)} CPU ms/record, ${requests} requests sent`
  ])
  await emu.close()
}

if (wanted("memory")) {
  const emu = await startEmulator({ apiKey: KEY })
  for (const n of FULL ? [100_000, 1_000_000] : [100_000]) {
    for (const distinct of [n, 1000]) {
      const input = join(dir, `mem-${n}-${distinct}.jsonl`)
      await writeCorpus(input, n, distinct)
      const job = writeJob(`mem-${n}-${distinct}`, input, `  concurrency: 64\n  records: 256\n`)
      const r = await runJob(job, emu.url)
      rows.push([
        `peak RSS, ${fmt(n)} records, ${distinct === n ? "all texts distinct" : "1,000 distinct texts"}`,
        `**${r.peakMiB.toFixed(0)} MiB**, ${fmt(n / r.seconds)} records/s`
      ])
      if (distinct === n) {
        // The same job again, every answer in the ledger: the warm rate with start-up spread over more records.
        const warm = await runJob(job, emu.url)
        rows.push([
          `warm rerun of the ${fmt(n)} distinct records`,
          `**${fmt(n / warm.seconds)} records/s**, ${(warm.cpuMs / n).toFixed(3)} CPU ms/record, peak RSS ${warm.peakMiB.toFixed(0)} MiB`
        ])
      }
    }
  }
  await emu.close()
}

console.log(
  `\nsvc-batch performance — ${BIN}\n${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}${FULL ? ", BENCH_FULL" : ""}`
)
console.log("| row | result |\n|---|---|")
for (const [k, v] of rows) console.log(`| ${k} | ${v} |`)
