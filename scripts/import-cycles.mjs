// Import cycles among the TypeScript files under a folder (default src): every relative import,
// type-only ones too (`--values-only` leaves those out). Prints each group of files that import
// one another in a ring; exits 1 when there is one. No dependency: madge is not installed.
//   node scripts/import-cycles.mjs [src] [--values-only]
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const args = process.argv.slice(2)
const root = resolve(args.find((a) => !a.startsWith("--")) ?? "src")
const typesToo = !args.includes("--values-only")
const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path)
    else if (/\.m?ts$/.test(name) && !name.endsWith(".d.ts")) files.push(path)
  }
}
walk(root)
const known = new Set(files)
const importRe =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?[^"';]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g
const graph = new Map()
for (const file of files) {
  const deps = []
  for (const m of readFileSync(file, "utf8").matchAll(importRe)) {
    if (m[1] && !typesToo) continue
    const target = resolve(dirname(file), m[2] ?? m[3])
    if (known.has(target)) deps.push(target)
  }
  graph.set(file, deps)
}
// Tarjan's strongly connected components: a component of more than one file is a cycle.
let next = 0
const index = new Map()
const low = new Map()
const stack = []
const onStack = new Set()
const cycles = []
const visit = (v) => {
  index.set(v, next)
  low.set(v, next++)
  stack.push(v)
  onStack.add(v)
  for (const w of graph.get(v)) {
    if (!index.has(w)) {
      visit(w)
      low.set(v, Math.min(low.get(v), low.get(w)))
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
  }
  if (low.get(v) !== index.get(v)) return
  const group = []
  let w
  do {
    w = stack.pop()
    onStack.delete(w)
    group.push(w)
  } while (w !== v)
  if (group.length > 1) cycles.push(group)
}
for (const v of graph.keys()) if (!index.has(v)) visit(v)
console.log(`${files.length} files, ${cycles.length} import cycle(s)${typesToo ? " (type-only imports included)" : ""}`)
for (const group of cycles) console.log(`  ${group.map((f) => relative(process.cwd(), f)).join(" ↔ ")}`)
process.exitCode = cycles.length > 0 ? 1 : 0
