/**
 * KNN benchmark (not a test): exact (sqlite-vec's brute-force scan) against the HNSW sidecar index
 * (`store: { index: hnsw }`, usearch) on the same table.
 *   npm run bench:knn [-- --sizes 100000] [--queries 100] [--vectors text|synthetic] [--ef 64,128,256]
 *                     [--commands 5]
 * For each size: vectors written (sqlite-vec upserts), the index built from the table and saved
 * (what a writer does with a missing or stale index), the searcher's open time (the index is
 * memory-mapped), query ms p50/p95 for k = 10 on each path, recall@10 of the index against the
 * exact answers (and counting a hit tied with the 10th exact distance as found), and the whole
 * `svc-batch search` command through the bin (start-up, the query's embedding by the embedded
 * emulator, the search), with `index: none` and `index: hnsw`.
 * Vectors, 1536-d, the emulator's svc3-embedding: `text` (default) embeds a real-ish corpus
 * (text-corpus.ts: the prose on this machine, RETRIEVAL_DOCUMENT; queries RETRIEVAL_QUERY of
 * held-out paragraphs' first 12 words); `synthetic` is 97 topics × 31 places plus dense noise
 * (near-ties everywhere: the hard case).
 */
import { Schema } from "effect"
import { spawnSync } from "node:child_process"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { embed } from "../../src/emulator/models/embeddings.ts"
import { HNSW, indexFile, openHnswSearcher, openHnswWriter } from "../../src/store/hnsw-index.ts"
import { openStoreSearcher, openStoreWriter } from "../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { benchDir } from "./bench-dir.ts"
import { textCorpus } from "./text-corpus.ts"

const args = process.argv.slice(2)
const arg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const sizes = (arg("--sizes") ?? "100000").split(",").map(Number)
const queries = Number(arg("--queries") ?? 100)
const kind = arg("--vectors") ?? "text"
const commands = Number(arg("--commands") ?? 5)
/** Query beam widths to try on the same index (the first is the store's default). */
const efs = (arg("--ef") ?? String(HNSW.efSearch)).split(",").map(Number)
const DIM = 1536
const dir = benchDir("svc-knn-bench-")
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load ${load()}; hnsw (usearch) M=${HNSW.m} efConstruction=${HNSW.efConstruction} efSearch=${HNSW.efSearch}; vectors: ${kind}`
)

const corpus = kind === "text" ? textCorpus(Math.max(...sizes), queries) : undefined
if (corpus !== undefined) console.log(`corpus: ${corpus.units.length} units from ${corpus.sources}`)
/** Past the corpus's units (~390k here), two units joined: still prose, and distinct. */
const docText = (i: number) => {
  if (corpus === undefined) return `document ${i} about topic ${i % 97} and place ${i % 31}`
  const u = corpus.units
  return i < u.length ? u[i]! : `${u[i % u.length]!} ${u[(i * 7919 + Math.floor(i / u.length)) % u.length]!}`
}
const vectorFor = (i: number): Float32Array => {
  const base = embed(docText(i), "RETRIEVAL_DOCUMENT")
  if (corpus !== undefined) return Float32Array.from(base)
  let s = (i * 2654435761) >>> 0
  return Float32Array.from(base, (x) => {
    s = (s * 1103515245 + 12345) >>> 0
    return x + (s / 2 ** 32 - 0.5) * 0.05
  })
}
const queryText = (q: number) =>
  corpus !== undefined
    ? corpus.queries[q % corpus.queries.length]!
    : `about topic ${(q * 7) % 97} and place ${(q * 3) % 31}`

const pct = (xs: Array<number>, p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(0))
const timed = <A>(f: () => A): [A, number] => {
  const t = performance.now()
  const a = f()
  return [a, performance.now() - t]
}
/** CPU ms of this process too: the machine's cores are shared, so wall time alone overstates. */
const cpuTimed = <A>(f: () => A): [A, number, number] => {
  const c = process.cpuUsage()
  const [a, wall] = timed(f)
  const d = process.cpuUsage(c)
  return [a, wall, (d.user + d.system) / 1000]
}
/** The embedded emulator answers the query's embedding: no service settings. */
const emulatorEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k !== "SVC_BASE_URL" && k !== "SVC_API_KEY")
)
/** CPU ms of the children this process waited for (/proc/self/stat cutime + cstime, 10 ms ticks). */
const childCpu = () => {
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ")
  return (Number(f[13]) + Number(f[14])) * 10
}

for (const n of sizes) {
  const exact = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, `knn-${n}.sqlite`), text: "body" })
  const indexed = { ...exact, index: "hnsw" as const }
  const [, writeMs] = timed(() => {
    const w = openStoreWriter(exact, DIM, { job: "bench" })
    for (let i = 0; i < n; i++) w.put(`d${i}`, "h", () => [{ vector: vectorFor(i), text: docText(i), metadata: {} }])
    w.commit()
    w.close()
  })
  console.log(`\n${n} vectors × ${DIM}: embedded and written to sqlite-vec in ${(writeMs / 1000).toFixed(1)} s`)
  // A writer with no changed row builds the missing index from the table and saves it.
  const [, buildMs, buildCpu] = cpuTimed(() => {
    const w = openHnswWriter(indexed, DIM, { job: "bench" })
    w.commit()
    w.close()
  })
  const mb = (statSync(indexFile(indexed)).size / 2 ** 20).toFixed(0)
  console.log(
    `hnsw index built and saved in ${(buildMs / 1000).toFixed(1)} s (CPU ${(buildCpu / 1000).toFixed(1)} s on all cores; ${mb} MB file), load ${load()}`
  )

  const qs = Array.from({ length: queries }, (_, q) => embed(queryText(q), "RETRIEVAL_QUERY"))
  const scan = openStoreSearcher(exact)
  const exactMs: Array<number> = []
  const exactCpu: Array<number> = []
  const truth = qs.map((q) => {
    const [hits, t, cpu] = cpuTimed(() => scan.search(q, 10))
    exactMs.push(t)
    exactCpu.push(cpu)
    return { keys: new Set(hits.map((h) => h.key)), tenth: hits[hits.length - 1]?.distance ?? Infinity }
  })
  scan.close()
  console.log(
    `exact (sqlite-vec scan): p50 ${ms(pct(exactMs, 0.5))} ms, p95 ${ms(pct(exactMs, 0.95))} ms (CPU p50 ${ms(pct(exactCpu, 0.5))} ms)`
  )
  for (const ef of efs) {
    const [index, openMs] = timed(() => openHnswSearcher(indexed, ef))
    if (index.exact) throw new Error("the index is not current after its build")
    const indexMs: Array<number> = []
    const indexCpu: Array<number> = []
    let found = 0
    let tied = 0
    qs.forEach((q, i) => {
      const [hits, t, cpu] = cpuTimed(() => index.search(q, 10))
      indexMs.push(t)
      indexCpu.push(cpu)
      for (const h of hits)
        if (truth[i]!.keys.has(h.key)) found++
        else if (h.distance <= truth[i]!.tenth + 1e-6) tied++
    })
    index.close()
    console.log(
      `hnsw efSearch ${ef}: p50 ${ms(pct(indexMs, 0.5))} ms, p95 ${ms(pct(indexMs, 0.95))} ms (CPU p50 ${ms(pct(indexCpu, 0.5))} ms), recall@10 ${(found / (10 * queries)).toFixed(3)} (${((found + tied) / (10 * queries)).toFixed(3)} counting ties); searcher open ${ms(openMs)} ms`
    )
  }

  // The whole command, as a user runs it: `svc-batch search job.yaml "query"` through the bin.
  for (const index of ["none", "hnsw"] as const) {
    const job = join(dir, `search-${n}-${index}.yaml`)
    writeFileSync(
      job,
      `name: bench\ninput: { path: unused.jsonl, id: id }\noutput: { path: unused.parquet }\nstages:\n  - embed: { field: body }\nstore: { path: ${exact.path}, text: body, index: ${index} }\n`
    )
    const walls: Array<number> = []
    const cpuMs: Array<number> = []
    for (let c = 0; c < commands; c++) {
      const before = childCpu()
      const t = performance.now()
      const r = spawnSync(process.execPath, ["src/cli/bin.mjs", "search", job, queryText(c), "-k", "10", "--json"], {
        env: emulatorEnv,
        encoding: "utf8"
      })
      walls.push(performance.now() - t)
      cpuMs.push(childCpu() - before)
      if (r.status !== 0) throw new Error(`search exited ${r.status}: ${r.stderr}`)
    }
    console.log(
      `svc-batch search, index: ${index}: p50 ${ms(pct(walls, 0.5))} ms wall, CPU p50 ${ms(pct(cpuMs, 0.5))} ms (${commands} runs, load ${load()})`
    )
  }
}
