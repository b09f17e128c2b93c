/**
 * Output to a pipe: everything a command prints reaches a slow reader before the process exits;
 * a reader that closes the pipe early ends the process at once with 141, without a stack trace.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const BIN = new URL("../../src/cli/bin.mjs", import.meta.url).pathname
const env = { ...process.env }
delete env.SVC_BASE_URL
delete env.SVC_API_KEY

const RUNS = 4096

/** A job whose ledger lists 4,096 runs (~1.5 MB as `runs --json`): one real run, its row copied. */
const jobWithManyRuns = async () => {
  const dir = tempDir()
  writeFileSync(join(dir, "in.jsonl"), `{"id":"a","text":"hello"}\n{"id":"b","text":"world"}\n`)
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    "name: many\npipeline: moderation\nfields: { text: text }\ninput: { path: in.jsonl, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n"
  )
  expect(await spawnCli(["run", job], { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }).exited).toBe(0)
  const db = new Database(join(dir, ".svc-batch", "many.ledger.sqlite"))
  const copy =
    "INSERT INTO runs (job, fingerprint, status, started_at, finished_at, counters, service, updated_at) SELECT job, fingerprint, status, started_at, finished_at, counters, service, updated_at FROM runs"
  for (let n = 1; n < RUNS; n *= 2) db.exec(copy)
  db.close()
  return job
}

/**
 * `runs --json` with stdout piped to a reader that takes the first chunk, then nothing until the
 * command has exited (the old fault: the rest was lost) or had a second to.
 */
const pipedRuns = (job: string) => {
  const child = spawn(process.execPath, [BIN, "runs", job, "--json", "--limit", String(RUNS)], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let err = ""
  child.stderr.on("data", (d) => (err += d))
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? (signal ? -1 : null)))
  )
  const first = new Promise<Buffer>((resolve) =>
    child.stdout.once("data", (d: Buffer) => {
      child.stdout.pause()
      resolve(d)
    })
  ).then(async (chunk) => {
    await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))])
    return chunk
  })
  return { child, exited, first, err: () => err }
}

describe("output to a pipe", () => {
  let job = ""
  beforeAll(async () => void (job = await jobWithManyRuns()))

  it("a slow reader of runs --json (≥ 1 MB) gets every line, and the exit code is 0", async () => {
    const { child, exited, first, err } = pipedRuns(job)
    const chunks: Array<Buffer> = [await first]
    // A slow reader: a pause after every chunk.
    child.stdout.on("data", (d: Buffer) => {
      chunks.push(d)
      child.stdout.pause()
      setTimeout(() => child.stdout.resume(), 5)
    })
    child.stdout.resume()
    const closed = new Promise((r) => child.stdout.on("end", r))
    expect(await exited).toBe(0)
    await closed
    const text = Buffer.concat(chunks).toString("utf8")
    expect(text.length).toBeGreaterThan(1_000_000)
    expect(text.endsWith("\n")).toBe(true)
    const lines = text.trimEnd().split("\n")
    expect(lines).toHaveLength(RUNS)
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(
      Array.from({ length: RUNS }, (_, i) => RUNS - i)
    )
    expect(err()).toBe("")
  }, 60_000)

  it("a reader that closes the pipe after the first line (| head -1): exit 141 at once, no stack trace", async () => {
    const { child, exited, first, err } = pipedRuns(job)
    expect((await first).toString("utf8").split("\n")[0]).toMatch(/^\{"id":4096,/)
    child.stdout.destroy()
    expect(await exited).toBe(141)
    expect(err()).toBe("")
  }, 60_000)
})
