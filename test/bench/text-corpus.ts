/**
 * A real-ish text corpus for the KNN benchmark, from prose already on the machine: the Markdown
 * and doc comments of the installed packages (pinned by the lock file), then, when present, the
 * man pages, /usr/share/doc and Python's docstrings. Paragraphs of 60–1,500 characters (mostly
 * code skipped, duplicates dropped), then their sentences of ≥ 40 characters as units of their
 * own (chunks of a document, as a backfill with `long: chunk` makes them), in a seeded order.
 * Deterministic for one machine; the count of each source is printed so a run can be compared.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { gunzipSync } from "node:zlib"

const find = (root: string, args: ReadonlyArray<string>): Array<string> => {
  if (!existsSync(root)) return []
  try {
    return execFileSync("find", ["-L", root, ...args], { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .split("\n")
      .filter(Boolean)
      .sort()
  } catch (e) {
    // find exits 1 on an unreadable directory but still lists the rest.
    const out = (e as { stdout?: Buffer }).stdout
    return out === undefined ? [] : out.toString().split("\n").filter(Boolean).sort()
  }
}

const read = (file: string): string => {
  try {
    const raw = readFileSync(file)
    return (file.endsWith(".gz") ? gunzipSync(raw) : raw).toString("utf8")
  } catch {
    return ""
  }
}

/** roff to text: requests become paragraph breaks or their arguments, font escapes go. */
const manText = (s: string) =>
  s
    .split("\n")
    .filter((l) => !l.startsWith('.\\"'))
    .map((l) => (/^\.(PP|SH|SS|TP|LP|P|IP|sp)\b/.test(l) ? "" : l.startsWith(".") ? l.replace(/^\.\w+\s*/, "") : l))
    .join("\n")
    .replace(/\\f[BIRP]|\\f\(..|\\\(..|\\[-&e]/g, "")

const pyDocstrings = (s: string) => [...s.matchAll(/"""([\s\S]*?)"""/g)].map((m) => m[1]!).join("\n\n")

const sources: ReadonlyArray<readonly [string, () => Array<string>, (s: string) => string]> = [
  [
    "node_modules: *.md, .d.ts doc comments",
    () => [
      ...find("node_modules", ["-name", "*.md", "-size", "+1k"]),
      ...find("node_modules/@types", ["-name", "*.d.ts"]),
      ...find("node_modules/typescript/lib", ["-name", "lib.*.d.ts"])
    ],
    (s) => s.replace(/^\s*\/?\*+\/?/gm, "").replace(/^\s*\/\/+/gm, "")
  ],
  ["/usr/share/doc", () => find("/usr/share/doc", ["-type", "f", "!", "-name", "*.gz"]), (s) => s],
  [
    "/usr/share/man (1, 3, 5, 7, 8)",
    () => ["1", "3", "5", "7", "8"].flatMap((n) => find(`/usr/share/man/man${n}`, ["-name", "*.gz"])),
    manText
  ],
  ["Python docstrings", () => find("/usr/lib/python3.11", ["-name", "*.py"]), pyDocstrings]
]

/** `count` units (fewer when the machine has less prose), and `queries` held-out query texts. */
export const textCorpus = (count: number, queries: number) => {
  const seen = new Set<string>()
  const paragraphs: Array<string> = []
  const counts: Array<string> = []
  for (const [name, files, clean] of sources) {
    const before = paragraphs.length
    for (const file of files()) {
      const text = read(file)
      if (text.includes("\u0000")) continue
      for (const raw of clean(text).split(/\n\s*\n/)) {
        const p = raw.replace(/\s+/g, " ").trim()
        if (p.length < 60 || p.length > 1500 || seen.has(p)) continue
        if (!/[a-z]{3,}.*\s[a-z]{3,}\s/.test(p)) continue
        if ((p.match(/[{};=<>()]/g) ?? []).length > p.length / 15) continue
        seen.add(p)
        paragraphs.push(p)
      }
    }
    counts.push(`${name}: ${paragraphs.length - before}`)
  }
  let s = 12345
  const random = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32)
  for (let i = paragraphs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[paragraphs[i], paragraphs[j]] = [paragraphs[j]!, paragraphs[i]!]
  }
  // Queries: the first 12 words of paragraphs kept out of the store.
  const held = paragraphs.slice(0, queries).map((p) => p.split(" ").slice(0, 12).join(" "))
  const segmenter = new Intl.Segmenter("en", { granularity: "sentence" })
  const units = new Set<string>()
  for (const p of paragraphs.slice(queries)) {
    if (units.size >= count) break
    units.add(p)
    const sentences = [...segmenter.segment(p)].map((x) => x.segment.trim()).filter((x) => x.length >= 40)
    if (sentences.length > 1) for (const x of sentences) units.add(x)
  }
  return {
    units: [...units].slice(0, count),
    queries: held,
    sources: `${paragraphs.length} paragraphs (${counts.join("; ")})`
  }
}
