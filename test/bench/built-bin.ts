/**
 * Whether the bin a benchmark runs is the build (dist/) or the TypeScript sources through tsx:
 * src/cli/bin.mjs runs the sources when any of them is newer than the build (an edited checkout),
 * and a benchmark of that measures tsx's loader, not the product (seconds more per run).
 */
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"

const root = new URL("../..", import.meta.url).pathname
const stamp = join(root, "dist", ".built")

const newestSource = (dir: string): number => {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/** Warns (stderr) when the bin would run the sources: dist/ missing, or older than a source file. */
export const warnUnlessBuilt = (): void => {
  if (!existsSync(stamp))
    console.warn("dist/ is not built: the bin runs the sources through tsx (run `npm run build` first)")
  else if (["src", "pipelines"].some((d) => newestSource(join(root, d)) > statSync(stamp).mtimeMs))
    console.warn("dist/ is older than the sources: the bin runs them through tsx (run `npm run build` first)")
}
