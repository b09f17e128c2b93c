/**
 * Source benchmark (not a test): a full read of 200,000-line JSON Lines and CSV files (every
 * CSV text quoted, with doubled quotes), median of 5; then the same files cut into units of
 * 10,000 records (`cutUnits`, timed) and read unit by unit, the items checked equal in number.
 *   npm run bench:sources [-- <lines>]
 */
import { Effect, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { cpus } from "node:os"
import { join } from "node:path"
import { cutUnits, type Format, openSource } from "../../src/io/sources/index.ts"
import { benchDir } from "./bench-dir.ts"

const N = Number(process.argv[2] ?? 200_000)
const dir = benchDir("svc-sources-")
const text = (i: number) => `Note ${i}: the garden is lovely in spring, "quoted" words, 日本語 ${i % 97}.`
const jsonl = join(dir, "in.jsonl")
const csv = join(dir, "in.csv")
writeFileSync(
  jsonl,
  Array.from({ length: N }, (_, i) => JSON.stringify({ id: `r${i}`, text: text(i) })).join("\n") + "\n"
)
writeFileSync(
  csv,
  "id,text\n" + Array.from({ length: N }, (_, i) => `r${i},"${text(i).replace(/"/g, '""')}"`).join("\n") + "\n"
)

const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const timed = async <A>(f: () => Promise<A>): Promise<[A, number]> => {
  const t0 = performance.now()
  const a = await f()
  return [a, performance.now() - t0]
}

console.log(`${N.toLocaleString("en")} lines, ${cpus().length} cores, median of 5 (ms)`)
for (const [format, path] of [
  ["jsonl", jsonl],
  ["csv", csv]
] as const satisfies ReadonlyArray<readonly [Format, string]>) {
  const source = openSource(path, format)
  const full: Array<number> = []
  const cut: Array<number> = []
  const units: Array<number> = []
  let count = 0
  for (let k = 0; k < 5; k++) {
    const [n, ms] = await timed(() => Effect.runPromise(Stream.runCount(source.items())))
    if (n !== N) throw new Error(`${format}: ${n} items, expected ${N}`)
    full.push(ms)
    const [parts, cutMs] = await timed(() => Effect.runPromise(cutUnits(path, format, 10_000)))
    cut.push(cutMs)
    const [m, unitMs] = await timed(async () => {
      let total = 0
      for (const unit of parts) total += await Effect.runPromise(Stream.runCount(source.items(unit)))
      return total
    })
    if (m !== N) throw new Error(`${format}: ${m} items in units, expected ${N}`)
    units.push(unitMs)
    count = parts.length
  }
  console.log(
    `${format}: full read ${median(full).toFixed(0)}; cut into ${count} units ${median(cut).toFixed(0)}; read unit by unit ${median(units).toFixed(0)}`
  )
}
