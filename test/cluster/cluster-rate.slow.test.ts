/**
 * The cluster's rate end to end: a 6,000-record moderation job run by the coordinator and three
 * worker processes against an emulator (a process of its own) limiting svc3-guard to 3,000/min,
 * with `limits.rpm` 3,000 as the cluster's rate. Together they use the limit (≥ 98 % of it, ≤ 0.5 %
 * 429s), send each request once, and write the single-process run's output row for row.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { startEmulator } from "../../src/emulator/server.ts"
import { spawnCli } from "../cli/spawn-cli.ts"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { startPostgres, type ThrowawayPostgres } from "../support/postgres.ts"
import { countingProxy, posts, type CountingProxy, type Sent } from "./counting-proxy.ts"
import { KEY, startEmulatorProcess } from "./shared-load.ts"

const RECORDS = 6_000
const LIMIT = 3_000

let server: ThrowawayPostgres
let limited: Awaited<ReturnType<typeof startEmulatorProcess>>
let proxy: CountingProxy
let input: string

const jobFile = (dir: string, cluster: boolean) => {
  const job = join(dir, "rate.yaml")
  writeFileSync(
    job,
    [
      "name: rate",
      "pipeline: moderation",
      "fields: { text: text }",
      `input: { path: ${input}, id: id }`,
      "output: { path: out/r.jsonl }",
      // The single run (against an unlimited emulator) unpaced; the cluster at the limit.
      `limits: { records: 16, concurrency: 16${cluster ? `, rpm: { svc3-guard: ${LIMIT} }` : ""} }`,
      cluster ? "cluster: { unitRecords: 500 }" : "",
      ""
    ].join("\n")
  )
  return job
}

beforeAll(async () => {
  server = await startPostgres()
  limited = await startEmulatorProcess(LIMIT)
  proxy = await countingProxy(limited.url)
  input = writeCorpus(tempDir(), RECORDS)
}, 60_000)
afterAll(async () => {
  await proxy?.close()
  await limited?.close()
  await server?.stop()
})

describe("a cluster run at the service's limit", () => {
  it("three workers and the coordinator: ≥ 98 % of the limit, ≤ 0.5 % 429s, each request once, the single run's output", async () => {
    // The single-process run to compare with, against an unlimited emulator (the answers are the same).
    const reference = await startEmulator({ latencyMs: 1 })
    const singleDir = tempDir()
    const single = spawnCli(["run", jobFile(singleDir, false)], { SVC_BASE_URL: reference.url, SVC_API_KEY: "k" })
    expect(await single.exited).toBe(0)
    await reference.close()

    const url = await server.database("rate")
    const env = { SVC_BASE_URL: proxy.url, SVC_API_KEY: KEY, SVC_BATCH_LEDGER_URL: undefined }
    const dir = tempDir()
    const job = jobFile(dir, true)
    const workers = [1, 2, 3].map(() =>
      spawnCli(["worker", "--cluster", url, "--concurrency", "2", "--poll-ms", "100"], env)
    )
    const run = spawnCli(["run", job, "--cluster", url], env)
    // Each request's sender, for the failure's account below.
    for (const p of [...workers, run]) proxy.track(p.child.pid!)
    const code = await Promise.race([run.exited, sleep(200_000, "timeout")])
    if (code !== 0) console.log(run.out(), run.err())
    expect(code).toBe(0)
    expect(run.out()).toContain(`finished: ${RECORDS} done, 0 failed`)
    expect(readJsonl(join(dir, "out", "r.jsonl"))).toEqual(readJsonl(join(singleDir, "out", "r.jsonl")))

    const answers = posts(proxy.sent).filter((s) => s.key.startsWith("POST /v1/chat/completions"))
    const accepted = answers.filter((s) => s.status === 200)
    const rejected = answers.filter((s) => s.status === 429).length
    const times = accepted.map((s) => s.answeredAt!).sort((a, b) => a - b)
    const seconds = (times[times.length - 1]! - times[0]!) / 1000
    const rpm = ((accepted.length - 1) * 60) / seconds
    // Which process sent how many: all four took part.
    const byPort = new Set(accepted.map((s) => s.port)).size
    console.log("cluster at the limit:", JSON.stringify({ accepted: accepted.length, rejected, seconds, rpm, byPort }))
    if (accepted.length !== RECORDS) {
      // What the requests answered twice looked like: when, from which connection.
      const byKey = new Map<string, Array<Sent>>()
      for (const a of answers) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a])
      const twice = [...byKey.values()].filter((l) => l.filter((a) => a.status === 200).length > 1)
      console.log(
        "answered twice:",
        JSON.stringify(twice.slice(0, 5).map((l) => l.map((a) => ({ ...a, key: a.key.slice(-60) })))),
        JSON.stringify({ pids: [...workers, run].map((p) => p.child.pid) }),
        ...workers.map((w) => w.err().slice(-1500)),
        run.err().slice(-1500)
      )
    }
    // Each request answered once: as many accepted as records, all distinct.
    expect({ accepted: accepted.length, distinct: new Set(accepted.map((s) => s.key)).size }).toEqual({
      accepted: RECORDS,
      distinct: RECORDS
    })
    expect(rpm).toBeGreaterThanOrEqual(LIMIT * 0.98)
    // The emulator's bucket holds one second's worth: over two minutes, at most ~1 % above the limit.
    expect(rpm).toBeLessThanOrEqual(LIMIT * 1.02)
    expect(rejected / answers.length).toBeLessThanOrEqual(0.005)
    for (const w of workers) w.child.kill("SIGTERM")
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([130, 130, 130])
    // Every worker took units (the coordinator too, unless it ran out).
    for (const w of workers) expect(w.err()).toMatch(/taken, attempt 1/)
  }, 260_000)
})
