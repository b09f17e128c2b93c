/**
 * An output that cannot be written (the disk fills while it is written) ends the run at once:
 * exit 9, one line naming the output and the cause, the previous output kept, the run marked
 * interrupted and the job's lock released, so the next invocation resumes it.
 * A full disk is stood for by a file size limit on the process (`ulimit -f`): a write past it fails
 * with EFBIG as one on a full disk fails with ENOSPC, with no mount and no privilege.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { randomBytes } from "node:crypto"
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

/** 200 records of ~2.7 KB of random text: an output of ~550 KB (Parquet's codec cannot shrink it). */
const writeRandomCorpus = (dir: string) => {
  const path = join(dir, "in.jsonl")
  const lines = Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({ id: `r${i}`, text: `Record ${i} ${randomBytes(2000).toString("base64")}` })
  )
  writeFileSync(path, `${lines.join("\n")}\n`)
  return path
}

/** Beyond the output's size, within the ledger's (~110 KB with its write-ahead log for this corpus). */
const LIMIT = 256 * 1024

/** The exit code; a run that does not end within `ms` (the bug: a write waiting forever) is killed. */
const exitWithin = async (run: ReturnType<typeof spawnCli>, ms: number) => {
  const timer = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), ms).unref())
  const code = await Promise.race([run.exited, timer])
  if (code === "hung") run.child.kill("SIGKILL")
  return code
}

const runStatus = (ledger: string, id: number) => {
  const db = new Database(ledger, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare("SELECT status FROM runs WHERE id = ?").get(id) as { status: string } | undefined)?.status
  } finally {
    db.close()
  }
}

describe("an output the disk cannot hold", () => {
  it("exits 9 with one line naming the output and the cause; keeps the previous output; the next run resumes", async () => {
    const dir = tempDir()
    const input = writeRandomCorpus(dir)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: full\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )
    const ledger = join(dir, ".svc-batch", "full.ledger.sqlite")

    // JSON Lines output (written as records finish), then Parquet (written by the output pass).
    let run = 0
    for (const output of [join(dir, "out", "r.jsonl"), join(dir, "out", "r.parquet")]) {
      const first = spawnCli(["run", job, "--output", output], env)
      expect(await first.exited).toBe(0)
      run++
      const previous = readFileSync(output)
      expect(previous.length).toBeGreaterThan(2 * LIMIT)

      // Touched, so that the rerun writes it again rather than keep it unchanged (unchanged-output.ts).
      utimesSync(output, new Date(), new Date(Date.now() - 60_000))
      const full = spawnCli(["run", job, "--output", output], env, { fileSizeLimit: LIMIT })
      expect(await exitWithin(full, 60_000)).toBe(9)
      run++
      const lines = full
        .err()
        .split("\n")
        .filter((l) => l.startsWith("svc-batch:"))
      expect(lines).toEqual([`svc-batch: cannot write ${output}: EFBIG: file too large, write`])
      expect(readFileSync(output).equals(previous)).toBe(true)
      expect(readdirSync(join(dir, "out")).filter((n) => n.includes(".tmp-"))).toEqual([])
      expect(existsSync(`${ledger}.lock`)).toBe(false)
      expect(runStatus(ledger, run)).toBe("interrupted")

      // At once: not exit 7 (the lock is free), and the interrupted run is resumed.
      const next = spawnCli(["run", job, "--output", output], env)
      expect(await next.exited).toBe(0)
      expect(next.out()).toContain(`run ${run} (resumed) finished: 200 done`)
      expect(readFileSync(output).length).toBe(previous.length)
    }
  }, 240_000)

  it("a vector store that cannot take its last batch fails before the output is replaced", async () => {
    const dir = tempDir()
    const lines = Array.from({ length: 50 }, (_, i) =>
      JSON.stringify({ id: `d${i}`, title: `T${i}`, body: `Document ${i} about gardening, number ${i}` })
    )
    writeFileSync(join(dir, "in.jsonl"), `${lines.join("\n")}\n`)
    const job = join(dir, "job.yaml")
    const store = join(dir, "out", "vectors.sqlite")
    writeFileSync(
      job,
      `name: vec\ninput: { path: in.jsonl, id: id }\noutput: { path: out/e.jsonl }\nstages:\n  - embed: { field: body, task_type: RETRIEVAL_DOCUMENT }\nstore: { format: sqlite-vec, path: ${store}, table: docs, text: body, metadata: [title] }\nreport: { enabled: false }\n`
    )
    const output = join(dir, "out", "e.jsonl")
    expect(await spawnCli(["run", job], env).exited).toBe(0)
    // The previous output, told apart from the one this run would write; the store to be written anew.
    appendFileSync(output, `{"previous":true}\n`)
    const previous = readFileSync(output)
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${store}${suffix}`, { force: true })

    // 1 MiB: the output (~200 KB) fits, the store (vec0 takes a 6 MB chunk at its first vector) does not.
    const full = spawnCli(["run", job], env, { fileSizeLimit: 1024 * 1024 })
    expect(await exitWithin(full, 60_000)).toBe(9)
    const errors = full
      .err()
      .split("\n")
      .filter((l) => l.startsWith("svc-batch:"))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(new RegExp(`^svc-batch: cannot write ${store}: .*disk I/O error`))
    expect(readFileSync(output).equals(previous)).toBe(true)
  }, 120_000)
})
