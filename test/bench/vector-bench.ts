/**
 * Vector benchmarks (not tests).
 *   npm run bench:vectors [-- embed store ledger] [--sizes 10000,100000]
 * 1. embed: 20,000 short records through the embed stage as a `svc-batch run` process against
 *    the emulator (no limit, no latency) into Parquet + a sqlite-vec store: records/s, cold and
 *    warm (the warm run sends nothing and rewrites nothing);
 * 2. store: sqlite-vec upserts (vectors/s, batched transactions) and KNN latency (k = 10, median of
 *    20 queries) at each size (default 10,000 and 100,000 vectors of 1536 dimensions);
 * 3. ledger: bytes per stored vector (Float32 BLOB) against the same vectors as JSON text.
 */
import Database from "better-sqlite3"
import { Schema } from "effect"
import { spawn } from "node:child_process"
import { createWriteStream, statSync, writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { startEmulator } from "../../src/emulator/server.ts"
import { embed } from "../../src/emulator/models/embeddings.ts"
import { openStoreWriter, searchStore } from "../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { benchDir } from "./bench-dir.ts"
import { warnUnlessBuilt } from "./built-bin.ts"

const BIN = new URL("../../src/cli/bin.mjs", import.meta.url).pathname
warnUnlessBuilt()
const KEY = "bench-key"
const args = process.argv.slice(2)
const which = args.filter((a) => !a.startsWith("-") && !/^\d/.test(a))
const wanted = (name: string) => which.length === 0 || which.includes(name)
const sizesArg = args[args.indexOf("--sizes") + 1]
const sizes = args.includes("--sizes") && sizesArg ? sizesArg.split(",").map(Number) : [10_000, 100_000]
const dir = benchDir("svc-vector-bench-")
console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}`)

const run = (job: string, url: string) =>
  new Promise<{ seconds: number; stdout: string }>((resolve, reject) => {
    const t0 = performance.now()
    const child = spawn(process.execPath, [BIN, "run", job], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, SVC_BASE_URL: url, SVC_API_KEY: KEY }
    })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.on("exit", (code) =>
      code === 0
        ? resolve({ seconds: (performance.now() - t0) / 1000, stdout })
        : reject(new Error(`exit ${code}: ${stdout}`))
    )
  })

/**
 * A dense vector like a real model's (every value non-zero, 6 decimals as on the wire): the
 * emulator's stand-in vectors are sparse feature hashes, which would flatter JSON's size.
 */
const vectorFor = (i: number) => {
  const base = embed(`document ${i} about topic ${i % 97} and place ${i % 31}`, "RETRIEVAL_DOCUMENT")
  let s = (i * 2654435761) >>> 0
  return base.map((x) => {
    s = (s * 1103515245 + 12345) >>> 0
    return Math.round((x + (s / 2 ** 32 - 0.5) * 0.05) * 1e6) / 1e6
  })
}

if (wanted("embed")) {
  const n = 20_000
  const input = join(dir, "docs.jsonl")
  const out = createWriteStream(input)
  for (let i = 0; i < n; i++)
    out.write(
      `${JSON.stringify({ id: `d${i}`, body: `Document ${i} is about topic ${i % 97} near place ${i % 31}.` })}\n`
    )
  await new Promise<void>((r) => out.end(() => r()))
  const job = join(dir, "embed.yaml")
  writeFileSync(
    job,
    `name: embed-bench\ninput: { path: ${input}, id: id }\noutput: { path: ${join(dir, "embed.parquet")} }\nstages:\n  - embed: { field: body }\nstore: { path: ${join(dir, "embed.sqlite")}, text: body }\nreport: { enabled: false }\nlimits: { concurrency: 64, records: 512 }\n`
  )
  const emu = await startEmulator({ apiKey: KEY })
  const cold = await run(job, emu.url)
  const warm = await run(job, emu.url)
  await emu.close()
  console.log(
    `embed: ${n} records cold ${cold.seconds.toFixed(1)} s = ${Math.round(n / cold.seconds)} rec/s; warm ${warm.seconds.toFixed(1)} s = ${Math.round(n / warm.seconds)} rec/s`
  )
  console.log(
    `  warm: ${warm.stdout.match(/requests \d+/)?.[0]}; ${warm.stdout.match(/\d+ records written, \d+ unchanged/)?.[0]}`
  )
}

if (wanted("store")) {
  for (const size of sizes) {
    const settings = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, `store-${size}.sqlite`), text: "body" })
    const vectors = Array.from({ length: 1000 }, (_, i) => vectorFor(i))
    const writer = openStoreWriter(settings, 1536, { job: "bench" })
    const t0 = performance.now()
    for (let i = 0; i < size; i++)
      writer.put(`k${i}`, `h${i}`, () => [
        {
          vector: vectors[i % 1000]!.map((x, d) => (d === i % 1536 ? x + i * 1e-6 : x)),
          text: `document ${i}`,
          metadata: {}
        }
      ])
    writer.commit()
    writer.close()
    const upsertSeconds = (performance.now() - t0) / 1000
    const times: Array<number> = []
    for (let q = 0; q < 20; q++) {
      const t = performance.now()
      searchStore(settings, vectorFor(100_000 + q), 10)
      times.push(performance.now() - t)
    }
    times.sort((a, b) => a - b)
    const mib = statSync(settings.path).size / 2 ** 20
    console.log(
      `store ${size}: upsert ${Math.round(size / upsertSeconds)} vectors/s (${upsertSeconds.toFixed(1)} s); KNN k=10 median ${times[10]!.toFixed(0)} ms, p95 ${times[18]!.toFixed(0)} ms; file ${mib.toFixed(0)} MiB`
    )
  }
}

if (wanted("ledger")) {
  const n = 2000
  const blob = new Database(join(dir, "blob.sqlite"))
  const json = new Database(join(dir, "json.sqlite"))
  // The ledger's own layout (migrations.ts): a WITHOUT ROWID table keyed by a 43-character content key.
  for (const db of [blob, json])
    db.exec("CREATE TABLE answers (content_key TEXT PRIMARY KEY, answer TEXT NOT NULL) WITHOUT ROWID")
  const insertBlob = blob.prepare("INSERT INTO answers VALUES (?, ?)")
  const insertJson = json.prepare("INSERT INTO answers VALUES (?, ?)")
  blob.transaction(() => {
    for (let i = 0; i < n; i++)
      insertBlob.run(`${String(i).padStart(43, "k")}`, Buffer.from(Float32Array.from(vectorFor(i)).buffer))
  })()
  json.transaction(() => {
    for (let i = 0; i < n; i++) insertJson.run(`${String(i).padStart(43, "k")}`, JSON.stringify(vectorFor(i)))
  })()
  for (const db of [blob, json]) db.exec("VACUUM")
  blob.close()
  json.close()
  const per = (f: string) => statSync(join(dir, f)).size / n
  console.log(
    `ledger: ${per("blob.sqlite").toFixed(0)} bytes per vector as Float32 BLOB (6,144 of them the vector), ${per("json.sqlite").toFixed(0)} as JSON text: ${(per("json.sqlite") / per("blob.sqlite")).toFixed(1)}× smaller`
  )
}
