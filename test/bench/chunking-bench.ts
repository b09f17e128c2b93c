/**
 * Chunking throughput (a benchmark, not a test): translate's code-point chunking and moderation's
 * token chunking on ~5 MB of Japanese prose and ~5 MB of English prose, median of 3 runs.
 *   npm run bench:chunking
 */
import { cpus } from "node:os"
import { chunkText } from "../../src/stages/chunking.ts"
import { chunkForTranslation } from "../../src/stages/translation-chunking.ts"
import { countTokens } from "../../src/service/tokens.ts"

// A seeded generator, so every run chunks the same text.
let seed = 42
const next = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}
const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)]!

const jaClauses = [
  "吾輩は猫である",
  "名前はまだ無い",
  "どこで生れたかとんと見当がつかぬ",
  "新しい図書館は川の近くにあり",
  "会議の資料は金曜日までに共有してください",
  "この製品は軽くて丈夫なので",
  "駅までの道がとても混んでいました",
  "週末には多くの家族が訪れます"
]
const enWords = [
  "the",
  "river",
  "light",
  "north",
  "market",
  "signal",
  "garden",
  "paper",
  "morning",
  "stone",
  "city",
  "voice",
  "bridge",
  "window",
  "season",
  "letter",
  "forest",
  "harbor",
  "engine",
  "story",
  "quickly",
  "under",
  "between",
  "remarkable"
]

const prose = (bytes: number, sentence: () => string, paragraphEvery: number) => {
  const parts: Array<string> = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const s = sentence() + ((i + 1) % paragraphEvery === 0 ? "\n\n" : "")
    parts.push(s)
    size += Buffer.byteLength(s)
  }
  return parts.join("")
}
const ja = prose(5 * 1024 * 1024, () => `${pick(jaClauses)}、${pick(jaClauses)}。`, 12)
const en = prose(
  5 * 1024 * 1024,
  () => {
    const n = 8 + Math.floor(next() * 12)
    const words = Array.from({ length: n }, () => pick(enWords))
    return `${words.join(" ").replace(/^./, (c) => c.toUpperCase())}. `
  },
  8
)

const median = (f: () => number) => {
  const runs = [0, 1, 2].map(() => {
    const t0 = performance.now()
    const n = f()
    return { ms: performance.now() - t0, n }
  })
  runs.sort((a, b) => a.ms - b.ms)
  return runs[1]!
}

const rows: Array<string> = []
// Without line breaks every split goes through Intl.Segmenter (sentences), the slow path.
const jaFlat = ja.replace(/\n\n/g, "")
for (const [name, text] of [
  ["Japanese", ja],
  ["Japanese without line breaks", jaFlat],
  ["English", en]
] as const) {
  const mb = Buffer.byteLength(text) / (1024 * 1024)
  const t = median(() => chunkForTranslation(text).chunks.length)
  rows.push(
    `| translate chunking (≤ 5,000 code points), ${name}, ${mb.toFixed(1)} MB | **${(mb / (t.ms / 1000)).toFixed(1)} MB/s** | ${t.n} chunks |`
  )
  const m = median(() => chunkText(text, 4000, countTokens).length)
  rows.push(
    `| moderation chunking (≤ 4,000 tokens), ${name}, ${mb.toFixed(1)} MB | ${(mb / (m.ms / 1000)).toFixed(1)} MB/s | ${m.n} chunks |`
  )
}
console.log(`\nchunking benchmarks — ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, Node ${process.version}`)
console.log("| benchmark | throughput | chunks |\n|---|---|---|")
for (const r of rows) console.log(r)
