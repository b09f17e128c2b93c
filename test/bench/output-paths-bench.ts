/**
 * The output's two paths on a warm rerun (every answer stored: the run is its reads and its
 * writes), in this process: written inline as records finish (the input read once, plus its
 * fingerprint and the check before the commit) or by the output pass after the processing pass
 * (two more reads: the check before it and the pass). Interleaved pairs; wall and CPU per run.
 *   npx tsx test/bench/output-paths-bench.ts [records] [pairs]
 */
import { Effect } from "effect"
import { createWriteStream, mkdirSync } from "node:fs"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import type { RunSettings } from "../../src/engine/runner.ts"
import { embed } from "../../src/stages/embed.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { Schema } from "effect"
import { KEY } from "../helpers.ts"
import { moderationPipeline, pipelineOf, runOnce } from "../engine/run-helpers.ts"
import { benchDir } from "./bench-dir.ts"

const args = process.argv.slice(2).filter((a) => /^\d+$/.test(a))
const n = Number(args[0] ?? 50_000)
const pairs = Number(args[1] ?? 3)

const writeCorpus = async (path: string, count: number) => {
  const out = createWriteStream(path)
  for (let i = 0; i < count; i++) {
    const line = `${JSON.stringify({ id: `r${i}`, text: `Note ${i}: the garden is lovely in spring.` })}\n`
    if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => out.end(() => r()))
}

const emulator = await startEmulator({ apiKey: KEY })
const root = benchDir("svc-paths-")
const jobs = [
  { name: `moderation, ${n.toLocaleString("en-US")} records → JSONL`, count: n, pipeline: moderationPipeline() },
  {
    name: `embed, ${(n / 5).toLocaleString("en-US")} records → JSONL + sqlite-vec store`,
    count: n / 5,
    pipeline: pipelineOf(embed({ field: "text" })),
    store: true
  }
]
for (const job of jobs) {
  const dir = join(root, job.name.split(",")[0]!)
  mkdirSync(dir)
  const input = join(dir, "in.jsonl")
  await writeCorpus(input, job.count)
  const store = job.store
    ? { store: Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "kb.sqlite"), text: "text" }) }
    : {}
  const run = (overrides: Partial<RunSettings>) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const c0 = process.cpuUsage()
          const t0 = performance.now()
          const r = yield* runOnce({
            dir,
            input,
            emulator,
            pipeline: job.pipeline,
            overrides: { ...store, ...overrides }
          })
          const c = process.cpuUsage(c0)
          if (r.summary.status !== "finished" || r.counters.requests > 0)
            throw new Error(`not a warm run: ${JSON.stringify(r.summary)}`)
          return { seconds: (performance.now() - t0) / 1000, cpuMs: (c.user + c.system) / 1000 }
        })
      )
    )
  await Effect.runPromise(Effect.scoped(runOnce({ dir, input, emulator, pipeline: job.pipeline, overrides: store })))
  const rows: Record<string, Array<{ seconds: number; cpuMs: number }>> = { inline: [], "output pass": [] }
  for (let i = 0; i < pairs; i++) {
    rows.inline!.push(await run({}))
    rows["output pass"]!.push(await run({ inlineOutput: false }))
  }
  for (const [path, runs] of Object.entries(rows)) {
    console.log(
      `| ${job.name}, warm rerun, ${path} | ${runs.map((r) => `${r.seconds.toFixed(2)} s / ${(r.cpuMs / 1000).toFixed(2)} CPU s`).join("; ")} |`
    )
  }
}
await emulator.close()
