/**
 * Benchmarks run the bin, which runs the TypeScript sources through tsx when the build is missing
 * or older than a source (an edited checkout): a benchmark of that measures tsx's loader, not the
 * product (seconds more per run). They warn.
 */
import { buildState } from "../../src/cli/build-freshness.mjs"

const root = new URL("../..", import.meta.url).pathname

/** Warns (stderr) when the bin would run the sources: dist/ missing, or older than a source file. */
export const warnUnlessBuilt = (): void => {
  const state = buildState(root)
  if (state === "missing")
    console.warn("dist/ is not built: the bin runs the sources through tsx (run `npm run build` first)")
  else if (state === "stale")
    console.warn("dist/ is older than the sources: the bin runs them through tsx (run `npm run build` first)")
}
