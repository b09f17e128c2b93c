/**
 * A ledger the disk cannot grow mid-run (requests already sent) is not an invalid ledger: exit 9
 * (output not written), not 2 (which says nothing was sent), with one line naming the ledger and
 * the cause; the lock is released and the next run resumes. A ledger that is not one stays exit 2.
 * The full disk is stood for by a file size limit on the process (`ulimit -f`): SQLite's write
 * past it fails (EFBIG, SQLITE_IOERR_WRITE) as one on a full disk does (SQLITE_FULL).
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("a ledger the disk cannot hold", () => {
  it("exits 9 with one line naming the ledger and the cause; the lock is released and the next run resumes", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 1500)
    const small = writeCorpus(dir, 5, "small.jsonl")
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: lfull\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )
    const ledger = join(dir, ".svc-batch", "lfull.ledger.sqlite")
    const output = join(dir, "out", "r.jsonl")
    // The ledger made (and its previous output written) without a limit: it is opened whole below.
    const first = spawnCli(["run", job, "--input", small], env)
    expect(await first.exited).toBe(0)
    const previous = readFileSync(output)

    // 128 KiB: the ledger's write-ahead log passes it within the first records; the output would
    // not (1,500 short records) before the ledger does.
    const full = spawnCli(["run", job], env, { fileSizeLimit: 128 * 1024 })
    expect(await full.exited).toBe(9)
    const lines = full
      .err()
      .split("\n")
      .filter((l) => l.startsWith("svc-batch:"))
    expect(lines).toEqual([`svc-batch: ledger ${ledger}: write failed: disk I/O error (SQLITE_IOERR_WRITE)`])
    expect(existsSync(`${ledger}.lock`)).toBe(false)
    expect(readFileSync(output).equals(previous)).toBe(true)

    // At once (the lock is free): run 2 is resumed and finishes.
    const next = spawnCli(["run", job], env)
    expect(await next.exited).toBe(0)
    expect(next.out()).toContain("run 2 (resumed) finished: 1500 done")
  }, 120_000)

  it("a file that is not a ledger is still exit 2", async () => {
    const dir = tempDir()
    const input = writeCorpus(dir, 3)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: notledger\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )
    mkdirSync(join(dir, ".svc-batch"))
    const ledger = join(dir, ".svc-batch", "notledger.ledger.sqlite")
    writeFileSync(ledger, "not a database, ".repeat(512))
    const run = spawnCli(["run", job], env)
    expect(await run.exited).toBe(2)
    expect(run.err()).toContain(`svc-batch: ledger ${ledger}: file is not a database`)
  }, 60_000)
})
