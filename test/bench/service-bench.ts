/**
 * Benchmark (not a test): the emulator plus the TextService client on loopback at concurrency 64.
 * The emulator runs as its own process (`svc-batch emulator`), as a pipeline would see it; this
 * process drives the client. Prints requests/s and p50/p99 latency for short chat, embeddings
 * and rerank calls.   npm run bench [-- --requests 20000 --concurrency 64]
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { cpus } from "node:os"
import { TextService } from "../../src/service/client.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const REQUESTS = arg("requests", 20_000)
const CONCURRENCY = arg("concurrency", 64)
const KEY = "bench-key"

const startEmulatorProcess = () =>
  new Promise<{ url: string; pid: number; stop: () => void }>((resolve, reject) => {
    const bin = new URL("../../src/cli/bin.mjs", import.meta.url).pathname
    const child = spawn(process.execPath, [bin, "emulator", "--port", "0", "--api-key", KEY], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (d) => {
      out += d
      const m = out.match(/listening on (http:\/\/\S+)/)
      if (m) resolve({ url: m[1]!, pid: child.pid!, stop: () => child.kill("SIGTERM") })
    })
    child.on("exit", (code) => reject(new Error(`emulator exited ${code}`)))
  })

/** CPU milliseconds (user + system) a process has used so far, from /proc. */
const processCpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // clock ticks at 100 Hz
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

const main = (emulatorPid: number) =>
  Effect.gen(function* () {
    const svc = yield* TextService
    const cases: ReadonlyArray<[string, (i: number) => Effect.Effect<unknown, unknown>]> = [
      [
        "chat (short)",
        (i) =>
          svc.chat({
            model: "svc3-mini",
            messages: [{ role: "user", content: `Hello number ${i}` }],
            max_completion_tokens: 16
          })
      ],
      [
        "embeddings",
        (i) => svc.embed({ model: "svc3-embedding", input: `short text number ${i}`, task_type: "RETRIEVAL_DOCUMENT" })
      ],
      [
        "rerank (5 docs)",
        (i) =>
          svc.rerank({
            model: "svc3-rerank",
            query: `query ${i}`,
            documents: ["alpha", "beta gamma", `query ${i} doc`, "delta", "epsilon"]
          })
      ]
    ]
    const rows: Array<string> = []
    for (const [name, make] of cases) {
      // Warm up connections and JIT.
      yield* Effect.forEach(
        Array.from({ length: 500 }, (_, i) => i),
        make,
        { concurrency: CONCURRENCY, discard: true }
      )
      const latencies: Array<number> = []
      const clientCpu0 = process.cpuUsage()
      const emulatorCpu0 = processCpuMs(emulatorPid)
      const t0 = performance.now()
      yield* Effect.forEach(
        Array.from({ length: REQUESTS }, (_, i) => i),
        (i) => {
          const s = performance.now()
          return make(i).pipe(Effect.tap(() => Effect.sync(() => latencies.push(performance.now() - s))))
        },
        { concurrency: CONCURRENCY, discard: true }
      )
      const seconds = (performance.now() - t0) / 1000
      const clientCpu = process.cpuUsage(clientCpu0)
      const clientMs = (clientCpu.user + clientCpu.system) / 1000 / REQUESTS
      const emulatorMs = (processCpuMs(emulatorPid) - emulatorCpu0) / REQUESTS
      latencies.sort((a, b) => a - b)
      rows.push(
        `| ${name} | ${REQUESTS} | ${(REQUESTS / seconds).toFixed(0)} | ${percentile(latencies, 0.5).toFixed(1)} | ${percentile(latencies, 0.99).toFixed(1)} | ${clientMs.toFixed(3)} | ${emulatorMs.toFixed(3)} |`
      )
    }
    console.log(
      `\nemulator + client on loopback, concurrency ${CONCURRENCY}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}`
    )
    console.log(
      "| call | requests | requests/s | p50 ms | p99 ms | client CPU ms/req | emulator CPU ms/req |\n|---|---|---|---|---|---|---|"
    )
    for (const r of rows) console.log(r)
  })

const emu = await startEmulatorProcess()
try {
  await Effect.runPromise(main(emu.pid).pipe(Effect.provide(TextService.layer({ baseUrl: emu.url, apiKey: KEY }))))
} finally {
  emu.stop()
}
