/**
 * A cluster run end to end on this machine: a throwaway PostgreSQL, one emulator behind a proxy
 * that counts the requests, worker processes and the coordinator (`run --cluster`). Its output is
 * row for row a single-process run's, each distinct request is sent once, and a worker SIGKILLed
 * mid-run or a coordinator SIGKILLed and run again loses no record.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { createServer, request, type Server } from "node:http"
import { join } from "node:path"
import pg from "pg"
import { startEmulator, type RunningEmulator } from "../../src/emulator/server.ts"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { startPostgres, type ThrowawayPostgres } from "../support/postgres.ts"
import { spawnCli } from "../cli/spawn-cli.ts"

const RECORDS = 6_000

let server: ThrowawayPostgres
let emulator: RunningEmulator
let proxy: Server
/** Requests to the service by body: how often each distinct request was sent. */
const sent = new Map<string, number>()
const paths = new Map<string, number>()
let env: Record<string, string | undefined>
let input: string
/** The first half of the input, for the runs killed on the way (their output: the first half of the single run's). */
let half: string
const HALF = RECORDS / 2
let single: Array<Record<string, unknown>>

/** Every request to the emulator passes here and is counted. */
const countingProxy = (target: string) =>
  new Promise<Server>((resolve) => {
    const to = new URL(target)
    const s = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const key = `${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`
        sent.set(key, (sent.get(key) ?? 0) + 1)
        paths.set(`${req.method} ${req.url}`, (paths.get(`${req.method} ${req.url}`) ?? 0) + 1)
      })
      const out = request(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        }
      )
      out.on("error", () => res.destroy())
      req.pipe(out)
    })
    s.listen(0, "127.0.0.1", () => resolve(s))
  })

const jobFile = (dir: string, name: string, unitRecords = 500, from = input) => {
  const job = join(dir, `${name}.yaml`)
  writeFileSync(
    job,
    [
      `name: ${name}`,
      "pipeline: moderation",
      "fields: { text: text }",
      `input: { path: ${from}, id: id }`,
      "output: { path: out/r.jsonl }",
      "limits: { records: 16, concurrency: 16 }",
      `cluster: { unitRecords: ${unitRecords}, staleSeconds: 3, retryLimit: 5 }`,
      ""
    ].join("\n")
  )
  return job
}

/** Resolves when `pattern` appears in what the process printed on stderr (its log lines). */
const logged = (p: ReturnType<typeof spawnCli>, pattern: RegExp, ms = 60_000) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now()
    const poll = setInterval(() => {
      if (pattern.test(p.err())) resolve(void clearInterval(poll))
      else if (Date.now() - started > ms) reject(new Error(`timed out waiting for ${pattern}; stderr=${p.err()}`))
    }, 20)
  })

const worker = (url: string) => spawnCli(["worker", "--cluster", url, "--concurrency", "2", "--poll-ms", "100"], env)
const stopAll = async (ws: ReadonlyArray<ReturnType<typeof spawnCli>>) => {
  for (const w of ws) w.child.kill("SIGTERM")
  return Promise.all(ws.map((w) => w.exited))
}

beforeAll(async () => {
  server = await startPostgres()
  emulator = await startEmulator({ latencyMs: 1 })
  proxy = await countingProxy(emulator.url)
  const address = proxy.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  env = {
    SVC_BASE_URL: `http://127.0.0.1:${port}`,
    SVC_API_KEY: "test-key",
    SVC_BATCH_LEDGER_URL: undefined
  }
  const dir = tempDir()
  input = writeCorpus(dir, RECORDS)
  half = writeCorpus(dir, HALF, "half.jsonl")
  // The single-process run every cluster run is compared with (its own SQLite ledger).
  const job = jobFile(dir, "single")
  writeFileSync(job, readFileSync(job, "utf8").replace(/^cluster:.*$/m, ""))
  const run = spawnCli(["run", job], env)
  expect(await run.exited).toBe(0)
  single = readJsonl(join(dir, "out", "r.jsonl"))
  expect(single).toHaveLength(RECORDS)
}, 120_000)
afterAll(async () => {
  await new Promise((r) => proxy?.close(r))
  await emulator?.close()
  await server?.stop()
})

describe("run --cluster", () => {
  it("with two workers and the coordinator working: the single run's output, each request sent once", async () => {
    const url = await server.database("together")
    const dir = tempDir()
    const job = jobFile(dir, "together")
    const ws = [worker(url), worker(url)]
    sent.clear()
    paths.clear()
    const run = spawnCli(["run", job, "--cluster", url], env)
    expect(await run.exited).toBe(0)
    expect(run.out()).toContain(`finished: ${RECORDS} done, 0 failed`)
    expect(readJsonl(join(dir, "out", "r.jsonl"))).toEqual(single)
    // The corpus's texts are all distinct: one request each, none twice.
    // (GETs are each process's probe of the endpoint, not requests for answers.)
    const posts = [...sent].filter(([k]) => k.startsWith("POST"))
    expect({ answers: paths.get("POST /v1/chat/completions"), twice: posts.filter(([, n]) => n > 1).length }).toEqual({
      answers: RECORDS,
      twice: 0
    })
    const status = spawnCli(["status", job, "--cluster", url], env)
    expect(await status.exited).toBe(0)
    expect(status.out()).toMatch(/units\s+12 done, 0 active, 0 queued, 0 failed/)
    // Every process paced its requests from the cluster's one bucket for (service, model).
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    const buckets = await db.query("SELECT origin, model FROM shared_rates").finally(() => db.end())
    expect(buckets.rows).toEqual([{ origin: env.SVC_BASE_URL, model: "svc3-guard" }])
    // Stopped by SIGTERM: 130, as any command a signal stopped.
    expect(await stopAll(ws)).toEqual([130, 130])
  }, 90_000)

  it("a worker SIGKILLed mid-run: its unit goes to another, no record lost", async () => {
    const url = await server.database("killed")
    const dir = tempDir()
    const job = jobFile(dir, "killed", 250, half)
    const victim = worker(url)
    const other = worker(url)
    const run = spawnCli(["run", job, "--cluster", url, "--no-work"], env)
    // Killed while it holds a unit: its third, taken after one of its first two was done.
    await logged(victim, /(taken, attempt 1[^]*){3}/)
    victim.child.kill("SIGKILL")
    const code = await Promise.race([run.exited, new Promise((r) => setTimeout(() => r("timeout"), 60_000))])
    if (code !== 0) console.log(run.out(), run.err(), "OTHER", other.err(), "VICTIM", victim.err())
    expect(code).toBe(0)
    expect(run.out()).toContain(`finished: ${HALF} done, 0 failed`)
    expect(run.err()).toMatch(/silent for \d+ s; given to another worker/)
    expect(readJsonl(join(dir, "out", "r.jsonl"))).toEqual(single.slice(0, HALF))
    await stopAll([other])
  }, 90_000)

  it("the coordinator SIGKILLed, then the same command again: completes from where the units stood", async () => {
    const url = await server.database("again")
    const dir = tempDir()
    const job = jobFile(dir, "again", 250, half)
    const ws = [worker(url), worker(url)]
    const first = spawnCli(["run", job, "--cluster", url, "--no-work"], env)
    await logged(first, /units: [1-9]\d* of 12 done/)
    first.child.kill("SIGKILL")
    await first.exited
    // A worker stopped by SIGTERM while it holds a unit: the unit goes back to the queue at once.
    const [stopping, staying] = ws as [ReturnType<typeof spawnCli>, ReturnType<typeof spawnCli>]
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        const e = stopping.err()
        if ((e.match(/: taken,/g) ?? []).length > (e.match(/\): done/g) ?? []).length) resolve(void clearInterval(poll))
      }, 10)
    })
    stopping.child.kill("SIGTERM")
    expect(await stopping.exited).toBe(130)
    expect(stopping.err()).toMatch(/\): stopped/)
    const second = spawnCli(["run", job, "--cluster", url], env)
    expect(await second.exited).toBe(0)
    expect(second.out()).toContain(`finished: ${HALF} done, 0 failed`)
    expect(second.out()).toContain("resum")
    expect(readJsonl(join(dir, "out", "r.jsonl"))).toEqual(single.slice(0, HALF))
    await stopAll([staying])
  }, 90_000)

  it("a worker whose input is not the coordinator's refuses its unit: the run stops, exit 11, the reason in status", async () => {
    const url = await server.database("refused")
    const dir = tempDir()
    const own = writeCorpus(dir, 50, "small.jsonl")
    const job = join(dir, "refused.yaml")
    writeFileSync(
      job,
      `name: refused\npipeline: moderation\nfields: { text: text }\ninput: { path: ${own}, id: id }\noutput: { path: out/r.jsonl }\ncluster: { unitRecords: 20, staleSeconds: 2 }\n`
    )
    const run = spawnCli(["run", job, "--cluster", url, "--no-work"], env)
    await logged(run, /units: 0 done before, 3 sent/)
    // The file changes on this "machine" after the coordinator read it.
    writeFileSync(own, `${readFileSync(own, "utf8")}{"id":"late","text":"a late line"}\n`)
    const w = worker(url)
    expect(await run.exited).toBe(11)
    expect(run.err()).toMatch(/unit \d \(worker [^)]+\): .*is not the file the coordinator read/)
    const status = spawnCli(["status", job, "--cluster", url], env)
    expect(await status.exited).toBe(0)
    expect(status.out()).toMatch(/unit \d\s+refused: .*is not the file the coordinator read/)
    await stopAll([w])
  }, 60_000)
})
