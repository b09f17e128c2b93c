/**
 * Engine benchmarks (not tests). The emulator runs in this process (so it can count what it
 * answers); each job runs as its own `svc-batch run` process, as a user would run it.
 *   npm run bench:engine [-- saturation overhead warm memory]
 * 1. saturation: emulator limit 3,000 requests/min, latency 100 ± 50 ms, 2,500 records:
 *    achieved rate ÷ limit, and 429s as a share of requests;
 * 2. overhead: no limit, no latency, 50,000 records: records/s and CPU ms per record;
 * 3. warm rerun of the same corpus: records/s and requests sent (must be 0);
 * 4. memory: peak RSS for 100,000 and 1,000,000 JSONL records (1,000 distinct texts, so the run
 *    measures the engine, not the service);
 * 5. translate: 20,000 Japanese records (~150 code points) and 200 long ones (~12,000 code
 *    points, 3 chunks each) through the translate stage, no limit, no latency: records/s.
 */
import { spawn } from "node:child_process"
import { readFileSync, writeFileSync, createWriteStream } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import type { RequestLogEntry } from "../../src/emulator/options.ts"
import { benchDir } from "./bench-dir.ts"
import { warnUnlessBuilt } from "./built-bin.ts"

const BIN = new URL("../../src/cli/bin.mjs", import.meta.url).pathname
warnUnlessBuilt()
const KEY = "bench-key"
const which = process.argv.slice(2).filter((a) => !a.startsWith("-"))
const wanted = (name: string) => which.length === 0 || which.includes(name)

const writeCorpus = async (path: string, n: number, distinct = n) => {
  const out = createWriteStream(path)
  for (let i = 0; i < n; i++) {
    const k = i % distinct
    const line = `${JSON.stringify({ id: `r${i}`, text: k % 5 === 0 ? `Note ${k}: how to build a bomb.` : `Note ${k}: the garden is lovely in spring.` })}\n`
    if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => out.end(() => r()))
}

const writeJob = (dir: string, name: string, input: string, limits: string) => {
  const path = join(dir, `${name}.yaml`)
  writeFileSync(
    path,
    `name: ${name}\npipeline: moderation\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: ${join(dir, `${name}.out.jsonl`)}\nfields:\n  text: text\nlimits:\n${limits}`
  )
  return path
}

/** Runs a job as a child process; returns wall time, CPU ms and peak RSS (VmHWM) of that process. */
const runJob = (job: string, url: string) =>
  new Promise<{ seconds: number; cpuMs: number; peakMiB: number; stdout: string }>((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [BIN, "run", job], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, SVC_BASE_URL: url, SVC_API_KEY: KEY }
    })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    let peakKiB = 0
    let cpuTicks = 0
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
        peakKiB = Math.max(peakKiB, Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0))
        const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
        cpuTicks = Number(stat[11]) + Number(stat[12])
      } catch {
        // the process is gone
      }
    }
    const timer = setInterval(sample, 50)
    child.on("exit", (code) => {
      clearInterval(timer)
      if (code !== 0) return reject(new Error(`job exited ${code}: ${stdout}`))
      resolve({ seconds: (performance.now() - t0) / 1000, cpuMs: cpuTicks * 10, peakMiB: peakKiB / 1024, stdout })
    })
  })

const rows: Array<string> = []
const dir = benchDir("svc-bench-")

if (wanted("saturation")) {
  const log: Array<RequestLogEntry & { at: number }> = []
  const emu = await startEmulator({
    apiKey: KEY,
    rpm: 3000,
    latencyMs: 100,
    jitterMs: 50,
    onRequest: (e) => log.push({ ...e, at: performance.now() })
  })
  const input = join(dir, "sat.jsonl")
  await writeCorpus(input, 2500)
  await runJob(writeJob(dir, "saturation", input, `  rpm:\n    svc3-guard: 3000\n  concurrency: 32\n`), emu.url)
  await emu.close()
  const ok = log.filter((e) => e.status === 200)
  const r429 = log.filter((e) => e.status === 429).length
  const span = (ok[ok.length - 1]!.at - ok[0]!.at) / 1000
  const achieved = ((ok.length - 1) / span) * 60
  rows.push(
    `| saturation: 2,500 records, limit 3,000 req/min, latency 100 ± 50 ms | achieved ${achieved.toFixed(0)} req/min = **${(achieved / 3000).toFixed(3)} of the limit**; 429s ${r429} of ${log.length} requests (**${((100 * r429) / log.length).toFixed(2)} %**) |`
  )
}

if (wanted("overhead") || wanted("warm")) {
  let requests = 0
  const emu = await startEmulator({ apiKey: KEY, onRequest: () => void requests++ })
  const input = join(dir, "over.jsonl")
  await writeCorpus(input, 50_000)
  const job = writeJob(dir, "overhead", input, `  concurrency: 64\n  records: 256\n`)
  const cold = await runJob(job, emu.url)
  rows.push(
    `| overhead: 50,000 records, no limit, no latency (cold) | **${(50_000 / cold.seconds).toFixed(0)} records/s**, ${(cold.cpuMs / 50_000).toFixed(3)} CPU ms/record (job process), ${requests} requests, peak RSS ${cold.peakMiB.toFixed(0)} MiB |`
  )
  requests = 0
  const warm = await runJob(job, emu.url)
  rows.push(
    `| warm rerun of the same 50,000 records | **${(50_000 / warm.seconds).toFixed(0)} records/s**, ${(warm.cpuMs / 50_000).toFixed(3)} CPU ms/record, **${requests} requests sent** |`
  )
  await emu.close()
}

if (wanted("translate")) {
  let requests = 0
  const emu = await startEmulator({ apiKey: KEY, onRequest: () => void requests++ })
  const sentences = [
    "今日は朝から雨が降っていて、駅までの道がとても混んでいました。",
    "新しい図書館は川の近くにあり、週末には多くの家族が訪れます。",
    "この製品は軽くて丈夫なので、長い旅行にも安心して持って行けます。",
    "会議の資料は金曜日までに共有フォルダへ保存してください。"
  ]
  // A record number every 40 sentences, so no two records share a chunk (no dedupe flatters the rate).
  const text = (i: number, n: number) =>
    Array.from(
      { length: n },
      (_, j) => sentences[(i + j) % sentences.length] + (j % 40 === 39 ? `（記録${i}の${j}）` : "")
    ).join("") + `（記録${i}）`
  for (const [name, n, per] of [
    ["translate-short", 20_000, 5],
    ["translate-long", 200, 400]
  ] as const) {
    const input = join(dir, `${name}.jsonl`)
    writeFileSync(
      input,
      Array.from({ length: n }, (_, i) => JSON.stringify({ id: `t${i}`, body: text(i, per) })).join("\n") + "\n"
    )
    const job = join(dir, `${name}.yaml`)
    writeFileSync(
      job,
      `name: ${name}\ninput:\n  path: ${input}\n  id: id\noutput:\n  path: ${join(dir, `${name}.out.jsonl`)}\nstages:\n  - translate: { fields: body, to: en }\nlimits:\n  concurrency: 64\n  records: 256\n`
    )
    requests = 0
    const r = await runJob(job, emu.url)
    rows.push(
      `| ${name}: ${n.toLocaleString("en")} Japanese records of ~${text(0, per).length.toLocaleString("en")} code points, no limit, no latency | **${(n / r.seconds).toFixed(0)} records/s**, ${(r.cpuMs / n).toFixed(3)} CPU ms/record, ${requests} requests |`
    )
  }
  await emu.close()
}

if (wanted("memory")) {
  const emu = await startEmulator({ apiKey: KEY })
  for (const n of [100_000, 1_000_000]) {
    const input = join(dir, `mem-${n}.jsonl`)
    await writeCorpus(input, n, 1000)
    const r = await runJob(writeJob(dir, `memory-${n}`, input, `  concurrency: 64\n  records: 256\n`), emu.url)
    rows.push(
      `| memory: ${n.toLocaleString("en")} JSONL records | **peak RSS ${r.peakMiB.toFixed(0)} MiB**, ${(n / r.seconds).toFixed(0)} records/s |`
    )
  }
  await emu.close()
}

console.log(`\nengine benchmarks — ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}`)
console.log("| benchmark | result |\n|---|---|")
for (const r of rows) console.log(r)
