/**
 * The performance table (not a test), one command: `npm run bench` builds the bundle, then runs
 * every section below and prints each row, ours beside the peer's where there is one. Each job runs
 * as its own process through the installed bin (`src/cli/bin.mjs` run as a command, so its
 * shebang's heap flags apply), as the default job (no `limits`, the report on); the emulator runs
 * in this process. A section that fails prints why and the others still run.
 *   npm run bench [-- section …]          (or --only a,b; --skip a,b; default: every section)
 *   BENCH_ROUNDS=3                         (cold and warm rows: interleaved rounds, default 2)
 *   BENCH_FULL=1                           (also the warm rerun of 1,000,000 *distinct* records: ~20 min more)
 *   BENCH_BIN=/other/checkout/src/cli/bin.mjs  (measure another checkout: before/after)
 *   BENCH_SCALE=0.1                        (every corpus at a tenth: a quick check of the script)
 * Sections here:
 * - cold: 50,000 distinct records, no limit, no latency: CPU (user + sys) per record of the job
 *   process against the SDK + p-limit script (test/bench/peers/sdk-plimit-peer.mjs) at the same
 *   concurrency (the job's default), interleaved rounds; peak RSS (VmHWM) of both;
 * - memory: peak RSS of the default job, 100,000 distinct records and 1,000,000 records of 1,000
 *   distinct texts (cold);
 * - warm: the cold jobs again, every answer in the ledger, the report on: records/s (wall, start-up
 *   included) and CPU ms per record, 50,000 and 1,000,000 records; the machine's load beside them;
 * - saturation: limit use at 600, 3,000 and 6,000 req/min and a fault mix (limits.rpm given), with
 *   the openai SDK + bottleneck script's CPU at 600/min (test/bench/sdk-peer.mjs).
 * Sections of other scripts, run as they are (their own output): ramp (`bench:ramp`, else
 * `bench:rate`), embed, knn, startup, shared-rate, ledgers, cluster; one not in this checkout is named.
 */
import { spawn, spawnSync } from "node:child_process"
import { createWriteStream, existsSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { limitDefaults } from "../../src/job/job-file.ts"
import { benchDir } from "./bench-dir.ts"
import { warnUnlessBuilt } from "./built-bin.ts"

const root = new URL("../..", import.meta.url).pathname
const BIN = process.env.BENCH_BIN ?? join(root, "src/cli/bin.mjs")
warnUnlessBuilt()
const PEER = join(root, "test/bench/peers/sdk-plimit-peer.mjs")
const KEY = "bench-key"
const FULL = process.env.BENCH_FULL === "1"
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const scaled = (n: number) => Math.max(100, Math.round(n * Number(process.env.BENCH_SCALE ?? 1)))
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined
const dir = benchDir("svc-perf-")
const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits })
const load = () => loadavg()[0]!.toFixed(1)
const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

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

/** A job file: the default job (report on, default limits) unless `limits` lines are given. */
const writeJob = (name: string, input: string, limits = "", report = true) => {
  const path = join(dir, `${name}.yaml`)
  writeFileSync(
    path,
    `name: ${name}\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: ${join(dir, `${name}.out.jsonl`)}\nfields:\n  text: text\n${report ? "" : "report:\n  enabled: false\n"}${limits ? `limits:\n${limits}` : ""}`
  )
  return path
}

interface ProcessResult {
  readonly seconds: number
  readonly cpuMs: number
  readonly peakMiB: number
  readonly stdout: string
}

/**
 * Runs a command as a child process: wall time; CPU (user + sys) and peak RSS from /usr/bin/time
 * (exact, at exit), else sampled from /proc every 20 ms.
 */
const runProcess = (command: string, args: ReadonlyArray<string>, env: Record<string, string>, allowFail = false) =>
  new Promise<ProcessResult>((resolve, reject) => {
    const t0 = performance.now()
    const timeFile = join(dir, `time-${process.hrtime.bigint()}.txt`)
    const [cmd, argv] =
      TIME === undefined ? [command, args] : [TIME, ["-o", timeFile, "-f", "%U %S %M", command, ...args]]
    const child = spawn(cmd, argv, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d.toString().slice(-20_000)))
    let peakKiB = 0
    let ticks = 0
    const sample = () => {
      // /usr/bin/time's child (the bin: `env -S node …` execs node in the same process).
      let pid = child.pid!
      try {
        if (TIME !== undefined)
          pid = Number(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/)[0])
        const status = readFileSync(`/proc/${pid}/status`, "utf8")
        peakKiB = Math.max(peakKiB, Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0))
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
        ticks = Number(stat[11]) + Number(stat[12])
      } catch {
        // not started yet, or gone
      }
    }
    const timer = setInterval(sample, 20)
    child.on("exit", (code) => {
      clearInterval(timer)
      const seconds = (performance.now() - t0) / 1000
      if (code !== 0 && !allowFail)
        return reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${stdout.slice(-2000)}\n${stderr}`))
      let cpuMs = ticks * 10
      let peakMiB = peakKiB / 1024
      try {
        const [user, sys, maxKiB] = readFileSync(timeFile, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number)
        if (Number.isFinite(user) && Number.isFinite(sys) && Number.isFinite(maxKiB)) {
          cpuMs = (user! + sys!) * 1000
          peakMiB = maxKiB! / 1024
        }
      } catch {
        // no /usr/bin/time: the samples
      }
      resolve({ seconds, cpuMs, peakMiB, stdout })
    })
  })

// The bin as an installed command runs it (its shebang's node flags apply), as a user would.
const runJob = (job: string, url: string, allowFail = false) =>
  runProcess(BIN, ["run", job], { SVC_BASE_URL: url, SVC_API_KEY: KEY }, allowFail)
const binFlags = () =>
  readFileSync(BIN, "utf8")
    .split("\n")[0]!
    .replace(/^#!.*?node\s*/, "") || "(none)"

const lines = (path: string) => {
  try {
    return readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "").length
  } catch {
    return 0
  }
}

type Row = readonly [row: string, ours: string, peer: string]
const rows: Array<Row> = []
const row = (r: Row) => {
  rows.push(r)
  console.log(`  | ${r.join(" | ")} |`)
}

/** Cold jobs whose ledger a warm row reruns: made once, by the section that needs one first. */
const coldJobs = new Map<string, Promise<{ job: string; n: number; cold: ProcessResult }>>()
let emulatorUrl: string | undefined
const emulator = async () => {
  if (emulatorUrl === undefined) emulatorUrl = (await startEmulator({ apiKey: KEY })).url
  return emulatorUrl
}
const coldJob = (name: string, n: number, distinct = n) => {
  if (!coldJobs.has(name))
    coldJobs.set(
      name,
      (async () => {
        const input = join(dir, `${name}.jsonl`)
        await writeCorpus(input, n, distinct)
        const job = writeJob(name, input)
        return { job, n, cold: await runJob(job, await emulator()) }
      })()
    )
  return coldJobs.get(name)!
}

const cold = async () => {
  const url = await emulator()
  const n = scaled(50_000)
  const concurrency = limitDefaults.concurrency
  const input = join(dir, "cold.jsonl")
  await writeCorpus(input, n)
  const ours: Array<ProcessResult> = []
  const peer: Array<ProcessResult> = []
  for (let round = 0; round < ROUNDS; round++) {
    // A job of its own (its own ledger) each round: every run is cold. Interleaved, so load hits both alike.
    const name = round === 0 ? "cold-50k" : `cold-50k-${round}`
    const job = writeJob(name, input)
    const r = await runJob(job, url)
    ours.push(r)
    if (round === 0) coldJobs.set("cold-50k", Promise.resolve({ job, n, cold: r }))
    const out = join(dir, `peer-${round}.out.jsonl`)
    peer.push(await runProcess(process.execPath, [PEER, url, KEY, input, out, String(concurrency)], {}))
    if (lines(out) !== n) throw new Error(`the peer wrote ${lines(out)} of ${n} records`)
  }
  const perRecord = (rs: Array<ProcessResult>) => median(rs.map((r) => r.cpuMs / n))
  const [o, p] = [perRecord(ours), perRecord(peer)]
  row([
    `cold CPU per record, ${fmt(n)} distinct, concurrency ${concurrency} (${ROUNDS} interleaved rounds, median; load ${load()})`,
    `**${o.toFixed(3)} ms = ${(o / p).toFixed(2)}×** the peer (${ours.map((r) => (r.cpuMs / n).toFixed(3)).join(", ")}); ${fmt(n / median(ours.map((r) => r.seconds)))} rec/s`,
    `SDK + p-limit ${p.toFixed(3)} ms (${peer.map((r) => (r.cpuMs / n).toFixed(3)).join(", ")}); ${fmt(n / median(peer.map((r) => r.seconds)))} rec/s`
  ])
  row([
    `peak RSS, cold ${fmt(n)} distinct`,
    `**${fmt(Math.max(...ours.map((r) => r.peakMiB)))} MiB**`,
    `${fmt(Math.max(...peer.map((r) => r.peakMiB)))} MiB`
  ])
}

const memory = async () => {
  for (const [name, n, distinct] of [
    ["mem-100k", scaled(100_000), scaled(100_000)],
    ["mem-1m-1k", scaled(1_000_000), 1000]
  ] as const) {
    const { cold: r } = await coldJob(name, n, distinct)
    row([
      `peak RSS, cold ${fmt(n)} records, ${distinct === n ? "all texts distinct" : `${fmt(distinct)} distinct texts`} (load ${load()})`,
      `**${fmt(r.peakMiB)} MiB** = ${fmt((r.peakMiB * 1.048576) | 0)} MB; ${fmt(n / r.seconds)} rec/s, ${(r.cpuMs / n).toFixed(3)} CPU ms/record`,
      "goal ≤ 200 MB"
    ])
  }
}

const warm = async () => {
  const url = await emulator()
  const cases: Array<[string, number, number, string]> = [
    ["cold-50k", scaled(50_000), scaled(50_000), "≥ 30,000 rec/s"],
    ["mem-1m-1k", scaled(1_000_000), 1000, "≥ 40,000 rec/s"],
    ...(FULL
      ? ([["warm-1m", scaled(1_000_000), scaled(1_000_000), "≥ 40,000 rec/s"]] as Array<
          [string, number, number, string]
        >)
      : [])
  ]
  for (const [name, n, distinct, goal] of cases) {
    const { job } = await coldJob(name, n, distinct)
    const runs: Array<ProcessResult & { load: string }> = []
    for (let round = 0; round < ROUNDS; round++) runs.push({ ...(await runJob(job, url)), load: load() })
    const seconds = median(runs.map((r) => r.seconds))
    const cpu = median(runs.map((r) => r.cpuMs))
    row([
      `warm rerun, ${fmt(n)} records${distinct === n ? "" : ` (${fmt(distinct)} distinct texts)`}, report on (${ROUNDS} runs, median; load ${runs.map((r) => r.load).join(", ")})`,
      `**${fmt(n / seconds)} rec/s** wall (${runs.map((r) => fmt(n / r.seconds)).join(", ")}); ${((cpu / n) * 1000).toFixed(1)} CPU µs/record = ${fmt(n / (cpu / 1000))} rec per CPU s; peak ${fmt(Math.max(...runs.map((r) => r.peakMiB)))} MiB`,
      `goal ${goal}`
    ])
  }
}

const saturation = async () => {
  const satRecords = (rpm: number) => (rpm === 600 ? 500 : rpm === 3000 ? 2500 : 5000)
  const limited = async (name: string, rpm: number, faults: boolean) => {
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
    const out = lines(join(dir, `${name}.out.jsonl`))
    return {
      use,
      r429: log.length - passed.length,
      requests: log.length,
      n,
      lost: n - out,
      cpuMs: r.cpuMs,
      seconds: r.seconds
    }
  }
  // The peer: the official SDK + bottleneck on the same corpus at 600/min, its own emulator, same minute.
  const sdkPeer = async (rpm: number) => {
    const emu = await startEmulator({ apiKey: KEY, rpm, latencyMs: 100, jitterMs: 50 })
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
    return { cpuMs: r.cpuMs, seconds: r.seconds, n, out: lines(out) }
  }
  const [s600, s3000, s6000, fault, sdk600] = await Promise.all([
    limited("sat-600", 600, false),
    limited("sat-3000", 3000, false),
    limited("sat-6000", 6000, false),
    limited("fault-3000", 3000, true),
    sdkPeer(600)
  ])
  for (const [rpm, s] of [
    [600, s600],
    [3000, s3000],
    [6000, s6000]
  ] as const)
    row([
      `limit use at ${fmt(rpm)} req/min with limits.rpm (${fmt(s.n)} records)`,
      `**${s.use.toFixed(3)}**, 429s ${s.r429} of ${fmt(s.requests)}, lost ${s.lost}`,
      ""
    ])
  row([
    `fault mix at 3,000 req/min (5 % 500, 2 % 503, 2 % resets; ${fmt(fault.n)} records)`,
    `**${fault.use.toFixed(3)}**, 429s ${fault.r429}, lost ${fault.lost} (in rejects)`,
    ""
  ])
  row([
    `CPU at 600 req/min (${fmt(s600.n)} records, ${s600.seconds.toFixed(0)} s)`,
    `**${(s600.cpuMs / 1000).toFixed(1)} s = ${(s600.cpuMs / sdk600.cpuMs).toFixed(2)}×** the peer`,
    `SDK + bottleneck ${(sdk600.cpuMs / 1000).toFixed(1)} s (${sdk600.out} of ${sdk600.n} written)`
  ])
}

/** Another script's section: its own output, as it prints it (the bundle is built already). */
const external = (scripts: ReadonlyArray<string>, note: string) => async (): Promise<void> => {
  const defined = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> })
    .scripts
  const script = scripts.find((s) => defined[s] !== undefined)
  if (script === undefined) {
    console.log(`  (\`npm run ${scripts[0]}\` is not in this checkout: ${note})`)
    rows.push([note, "not in this checkout", ""])
    return
  }
  const command = defined[script]!.replace(/^npm run build && /, "")
  console.log(`  $ ${command}`)
  const r = spawnSync("sh", ["-c", command], { cwd: root, stdio: ["ignore", "inherit", "inherit"], env: process.env })
  if (r.status !== 0) throw new Error(`npm run ${script} exited ${r.status ?? r.signal}`)
  rows.push([note, `printed above (npm run ${script})`, ""])
}

const sections: ReadonlyArray<readonly [string, () => Promise<void>]> = [
  ["cold", cold],
  ["memory", memory],
  ["warm", warm],
  ["saturation", saturation],
  ["ramp", external(["bench:ramp", "bench:rate"], "rate discovery's ramp, no limits.rpm")],
  ["embed", external(["bench:embed"], "embedding backfill and no-op rerun")],
  ["knn", external(["bench:knn"], "search: KNN at 100k vectors")],
  ["startup", external(["bench:startup"], "start-up: --version, --help, a 20-record job")],
  ["shared-rate", external(["bench:shared-rate"], "one limits.rpm shared by jobs on PostgreSQL")],
  ["ledgers", external(["bench:ledgers"], "the SQLite and PostgreSQL ledgers")],
  ["cluster", external(["bench:cluster"], "one job over 1, 2 and 4 workers")]
]

const args = process.argv.slice(2)
const listed = (flag: string) => {
  const at = args.indexOf(flag)
  return at < 0 ? [] : (args[at + 1] ?? "").split(",").filter((s) => s !== "")
}
const named = [
  ...args.filter((a, i) => !a.startsWith("-") && !["--only", "--skip"].includes(args[i - 1] ?? "")),
  ...listed("--only")
]
const skipped = listed("--skip")
const unknown = [...named, ...skipped].filter((s) => !sections.some(([name]) => name === s))
if (unknown.length > 0) {
  console.error(`unknown section(s): ${unknown.join(", ")}; sections: ${sections.map(([n]) => n).join(", ")}`)
  process.exit(2)
}
const chosen = sections.filter(([name]) => (named.length === 0 || named.includes(name)) && !skipped.includes(name))

console.log(
  `svc-batch performance — ${BIN} (node flags: ${binFlags()})\n${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}; sections: ${chosen.map(([n]) => n).join(", ")}`
)
const failed: Array<string> = []
for (const [name, section] of chosen) {
  console.log(`\n## ${name}`)
  try {
    await section()
  } catch (e) {
    failed.push(name)
    console.log(`  section ${name} failed: ${e instanceof Error ? e.message.slice(0, 2000) : String(e)}`)
    rows.push([name, "failed (above)", ""])
  }
}

console.log(`\nsvc-batch performance — the rows (load at the end ${load()})`)
console.log("| row | svc-batch (the installed bin) | peer / goal |\n|---|---|---|")
for (const r of rows) console.log(`| ${r.join(" | ")} |`)
process.exit(failed.length > 0 ? 1 : 0)
