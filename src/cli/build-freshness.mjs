/**
 * Whether the build in dist/ is current: built (dist/.built), and no TypeScript source newer than
 * it. The bin runs the sources through tsx otherwise (an edited checkout never runs stale code),
 * and benchmarks warn, since they would measure tsx's loader instead of the product.
 */
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"

const newestSource = (dir) => {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

/** "missing" (no build), "stale" (a source newer than the build) or "current", for the package at `root`. */
export const buildState = (root) => {
  const stamp = join(root, "dist", ".built")
  if (!existsSync(stamp)) return "missing"
  const built = statSync(stamp).mtimeMs
  return ["src", "pipelines"].every((d) => newestSource(join(root, d)) <= built) ? "current" : "stale"
}
