/**
 * KNN benchmark (not a test): exact (sqlite-vec's brute-force scan) against the HNSW sidecar index
 * (`store: { index: hnsw }`) on the same table.
 *   npm run bench:knn [-- --sizes 100000] [--queries 50]
 * For each size: vectors written (sqlite-vec upserts), the index built from the table and saved
 * (what a writer does with a missing or stale index), the index file's load time (paid by every
 * `svc-batch search`), query ms p50/p95 for k = 10 on each path, and recall@10 of the index
 * against the exact answers. Vectors: the emulator's topical embeddings (97 topics × 31 places)
 * plus dense noise, 1536 dimensions, like vector-bench.ts; queries: RETRIEVAL_QUERY embeddings.
 */
import { Schema } from "effect"
import { statSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { embed } from "../../src/emulator/models/embeddings.ts"
import { HNSW, indexFile, openHnswSearcher, openHnswWriter } from "../../src/store/hnsw-index.ts"
import { openStoreSearcher, openStoreWriter } from "../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { benchDir } from "./bench-dir.ts"

const args = process.argv.slice(2)
const arg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const sizes = (arg("--sizes") ?? "100000").split(",").map(Number)
const queries = Number(arg("--queries") ?? 50)
/** Query beam widths to try on the same index (the first is the store's default). */
const efs = (arg("--ef") ?? String(HNSW.efSearch)).split(",").map(Number)
const DIM = 1536
const dir = benchDir("svc-knn-bench-")
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}; hnsw M=${HNSW.m} efConstruction=${HNSW.efConstruction} efSearch=${HNSW.efSearch}`
)

const vectorFor = (i: number) => {
  const base = embed(`document ${i} about topic ${i % 97} and place ${i % 31}`, "RETRIEVAL_DOCUMENT")
  let s = (i * 2654435761) >>> 0
  return Float32Array.from(base, (x) => {
    s = (s * 1103515245 + 12345) >>> 0
    return x + (s / 2 ** 32 - 0.5) * 0.05
  })
}
const queryFor = (q: number) => embed(`about topic ${(q * 7) % 97} and place ${(q * 3) % 31}`, "RETRIEVAL_QUERY")

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

for (const n of sizes) {
  const exact = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, `knn-${n}.sqlite`) })
  const indexed = { ...exact, index: "hnsw" as const }
  const [, writeMs] = timed(() => {
    const w = openStoreWriter(exact, DIM, { job: "bench" })
    for (let i = 0; i < n; i++) w.put(`d${i}`, "h", () => [{ vector: vectorFor(i), text: null, metadata: {} }])
    w.commit()
    w.close()
  })
  console.log(`\n${n} vectors × ${DIM}: written to sqlite-vec in ${(writeMs / 1000).toFixed(1)} s`)
  // A writer with no changed row builds the missing index from the table and saves it.
  const [, buildMs, buildCpu] = cpuTimed(() => {
    const w = openHnswWriter(indexed, DIM, { job: "bench" })
    w.commit()
    w.close()
  })
  const mb = (statSync(indexFile(indexed)).size / 2 ** 20).toFixed(0)
  console.log(
    `hnsw index built and saved in ${(buildMs / 1000).toFixed(1)} s (CPU ${(buildCpu / 1000).toFixed(1)} s; ${mb} MB file)`
  )

  const qs = Array.from({ length: queries }, (_, q) => queryFor(q))
  const scan = openStoreSearcher(exact)
  const exactMs: Array<number> = []
  const exactCpu: Array<number> = []
  const truth = qs.map((q) => {
    const [hits, t, cpu] = cpuTimed(() => scan.search(q, 10))
    exactMs.push(t)
    exactCpu.push(cpu)
    return new Set(hits.map((h) => h.key))
  })
  scan.close()
  for (const ef of efs) {
    const [index, loadMs] = timed(() => openHnswSearcher(indexed, ef))
    if (index.exact) throw new Error("the index is not current after its build")
    const indexMs: Array<number> = []
    const indexCpu: Array<number> = []
    let found = 0
    qs.forEach((q, i) => {
      const [hits, t, cpu] = cpuTimed(() => index.search(q, 10))
      indexMs.push(t)
      indexCpu.push(cpu)
      found += hits.filter((h) => truth[i]!.has(h.key)).length
    })
    index.close()
    console.log(
      `hnsw efSearch ${ef}: p50 ${ms(pct(indexMs, 0.5))} ms, p95 ${ms(pct(indexMs, 0.95))} ms (CPU p50 ${ms(pct(indexCpu, 0.5))} ms), recall@10 ${(found / (10 * queries)).toFixed(3)}; index load ${ms(loadMs)} ms (once per search process)`
    )
  }
  console.log(
    `exact (sqlite-vec scan): p50 ${ms(pct(exactMs, 0.5))} ms, p95 ${ms(pct(exactMs, 0.95))} ms (CPU p50 ${ms(pct(exactCpu, 0.5))} ms)`
  )
}
