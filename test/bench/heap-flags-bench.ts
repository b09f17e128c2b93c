/**
 * The bin's node flags, decided by measurement: the default job (its report on) through the bin's
 * entry with each flag set in turn, interleaved, on the shared corpora; CPU (user + sys, from /proc)
 * per record of a cold 50,000-record run and peak RSS (VmHWM) of a 100,000-record run, all texts
 * distinct, no limit, no latency.
 *
 *   npx tsx test/bench/heap-flags-bench.ts [rounds] ["flags a" "flags b" …]
 */
import { spawn } from "node:child_process"
import { createWriteStream, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { benchDir } from "./bench-dir.ts"
import { warnUnlessBuilt } from "./built-bin.ts"

const root = new URL("../..", import.meta.url).pathname
const BIN = process.env.BENCH_BIN ?? join(root, "src/cli/bin.mjs")
warnUnlessBuilt()
const KEY = "bench-key"
const dir = benchDir("svc-flags-")
const [roundsArg, ...flagArgs] = process.argv.slice(2)
const rounds = Number(roundsArg ?? 2)
const sets =
  flagArgs.length > 0
    ? flagArgs
    : [
        "--max-old-space-size=256 --max-semi-space-size=8",
        "",
        "--max-semi-space-size=16",
        "--max-old-space-size=512 --max-semi-space-size=16"
      ]
const sizes = (process.env.FLAGS_SIZES ?? "50000,100000").split(",").map(Number)

const text = (k: number) =>
  k % 5 === 0 ? `Note ${k}: how to build a bomb.` : `Note ${k}: the garden is lovely in spring.`
const writeCorpus = async (path: string, n: number) => {
  const out = createWriteStream(path)
  for (let i = 0; i < n; i++)
    if (!out.write(`${JSON.stringify({ id: `r${i}`, text: text(i) })}\n`))
      await new Promise<void>((r) => out.once("drain", () => r()))
  await new Promise<void>((r) => out.end(() => r()))
}

/** CPU ms (user + sys) and peak RSS of `node <flags> bin run job`, sampled from /proc. */
const run = (flags: string, job: string, url: string) =>
  new Promise<{ cpuMs: number; peakMiB: number }>((resolve, reject) => {
    const args = [...flags.split(" ").filter((f) => f !== ""), BIN, "run", job]
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, SVC_BASE_URL: url, SVC_API_KEY: KEY }
    })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    let peakKiB = 0
    let ticks = 0
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
        peakKiB = Math.max(peakKiB, Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0))
        const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
        ticks = Number(stat[11]) + Number(stat[12])
      } catch {
        // gone
      }
    }
    const timer = setInterval(sample, 20)
    child.on("exit", (code) => {
      clearInterval(timer)
      if (code !== 0) return reject(new Error(`exited ${code}: ${stderr}`))
      resolve({ cpuMs: ticks * 10, peakMiB: peakKiB / 1024 })
    })
  })

const emu = await startEmulator({ apiKey: KEY })
const inputs = new Map<number, string>()
for (const n of sizes) {
  const input = join(dir, `in-${n}.jsonl`)
  await writeCorpus(input, n)
  inputs.set(n, input)
}
const results = new Map<string, Array<string>>()
for (let round = 0; round < rounds; round++) {
  for (const [i, flags] of sets.entries()) {
    for (const n of sizes) {
      const name = `j${i}-${n}`
      const out = join(dir, `${name}.out.jsonl`)
      const job = join(dir, `${name}.yaml`)
      // A fresh ledger and output each time: every run is cold. The report stays at its default (on).
      rmSync(join(dir, ".svc-batch"), { recursive: true, force: true })
      writeFileSync(
        job,
        `name: ${name}-${round}\npipeline: moderation\ninput:\n  path: ${inputs.get(n)}\n  id: id\noutput:\n  path: ${out}\nfields:\n  text: text\nlimits:\n  concurrency: 64\n  records: 256\n`
      )
      const r = await run(flags, job, emu.url)
      const line = `${n}: ${(r.cpuMs / n).toFixed(3)} CPU ms/record, peak ${r.peakMiB.toFixed(0)} MiB`
      console.log(`[${round}] ${flags || "(no flags)"} — ${line}`)
      results.set(flags, [...(results.get(flags) ?? []), line])
    }
  }
}
await emu.close()
for (const [flags, lines] of results) console.log(`\n${flags || "(no flags)"}\n  ${lines.join("\n  ")}`)
