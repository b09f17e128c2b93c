import { extname } from "node:path"

/**
 * A file of one run beside the job's own: `out/result.csv` → `out/result.run-7.csv`. What a run
 * writes there never replaces the current file (an all-failed run's output, an older run's report).
 */
export const besidePath = (path: string, runId: number) => {
  const ext = extname(path)
  return `${path.slice(0, path.length - ext.length)}.run-${runId}${ext}`
}
