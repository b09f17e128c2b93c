/**
 * Vitest global setup: every test run gets its own temporary root, removed when the run ends.
 * Tests (and the job processes they start) make their directories with `tmpdir()`, which reads
 * TMPDIR: set here, before the test workers start, so nothing a test leaves behind outlives the run.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "svc-batch-tests-"))
  process.env.TMPDIR = root
  return () => rmSync(root, { recursive: true, force: true })
}
