/**
 * Vitest global setup: every test run gets its own temporary root, removed when the run ends.
 * Tests (and the job processes they start) make their directories with `tmpdir()`, which reads
 * TMPDIR: set here, before the test workers start, so nothing a test leaves behind outlives the run.
 * Each vitest project (vitest.config.ts) runs its global set-up: the first makes the root, the
 * others use it.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export default function setup(): () => void {
  if (process.env.SVC_BATCH_TEST_ROOT !== undefined && process.env.TMPDIR === process.env.SVC_BATCH_TEST_ROOT)
    return () => {}
  const root = mkdtempSync(join(tmpdir(), "svc-batch-tests-"))
  process.env.TMPDIR = root
  process.env.SVC_BATCH_TEST_ROOT = root
  return () => rmSync(root, { recursive: true, force: true })
}
