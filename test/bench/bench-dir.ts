/**
 * A benchmark's working directory (corpora, ledgers, outputs: up to gigabytes with BENCH_FULL=1),
 * removed when the script exits; BENCH_KEEP=1 keeps it and says where it is.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const benchDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  process.on("exit", () => {
    if (process.env.BENCH_KEEP === "1") console.error(`kept ${dir} (BENCH_KEEP=1)`)
    else rmSync(dir, { recursive: true, force: true })
  })
  return dir
}
