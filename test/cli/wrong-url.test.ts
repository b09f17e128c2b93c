/**
 * A SVC_BASE_URL that is not the service's API: the run aborts after a streak (exit 3) naming the
 * cause, and the same command with the right URL resumes it — the run had no answer to mix.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { emulatorFor, KEY, requestLog } from "../helpers.ts"
import { readJsonl, tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

/** A loopback server answering every request with `status` and `body`, counting the API calls (POST). */
const startServer = async (status: number, contentType: string, body: string) => {
  let requests = 0
  const server: Server = createServer((req, res) => {
    // Not the GET the command probes the URL with for an emulator's identity.
    if (req.method === "POST") requests++
    req.resume()
    req.on("end", () => {
      res.writeHead(status, { "content-type": contentType })
      res.end(body)
    })
  })
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise<void>((closed) => server.close(() => closed()))
  }
}

const writeJob = (dir: string, records: number) => {
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: wrong-url\npipeline: moderation\nfields: { text: text }\ninput: { path: ${writeCorpus(dir, records)}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { concurrency: 4, records: 16 }\nreport: { enabled: false }\n`
  )
  return job
}

const page = "<!doctype html>\n<html><head><title>Welcome</title></head><body>It works!</body></html>"

describe("a SVC_BASE_URL that is not the service's API", () => {
  let emu: RunningEmulator
  const log = requestLog()
  beforeAll(async () => {
    emu = await emulatorFor({ onRequest: log.onRequest })
  })
  afterAll(() => emu.close())

  it("answering HTML pages with 200: exit 3 after the streak, naming the cause; the same command on the emulator resumes the run", async () => {
    const html = await startServer(200, "text/html; charset=utf-8", page)
    try {
      const dir = tempDir()
      const job = writeJob(dir, 200)
      const wrong = spawnCli(["run", job], { SVC_BASE_URL: html.url, SVC_API_KEY: KEY })
      expect(await wrong.exited).toBe(3)
      expect(wrong.err()).toContain(
        `aborted: 10 answers in a row were 2xx but not the service's JSON (200 text/html: '<!doctype html> <html><head><title>Welco…' is not JSON) — SVC_BASE_URL ${html.url} does not look like the text service's API`
      )
      // The streak, plus the requests already in flight (concurrency 4).
      expect(html.requests()).toBeGreaterThanOrEqual(10)
      expect(html.requests()).toBeLessThanOrEqual(10 + 4)

      // The same command, the URL fixed (here: unset, the embedded emulator).
      const fixed = spawnCli(["run", job], { SVC_BASE_URL: undefined, SVC_API_KEY: undefined })
      expect(await fixed.exited).toBe(0)
      expect(fixed.err()).toMatch(
        new RegExp(
          `run 1 had no record done against ${html.url}: resumed against emulator, now its origin; its failed records are asked again`
        )
      )
      expect(fixed.out()).toContain("run 1 (resumed) finished: 200 done, 0 failed")
      expect(readJsonl(join(dir, "out", "r.jsonl"))).toHaveLength(200)
    } finally {
      await html.close()
    }
  }, 60_000)

  it("answering 404 (a path prefix too many): exit 3; the same command against the right URL resumes the run", async () => {
    const notFound = await startServer(404, "application/json", JSON.stringify({ message: "Not Found" }))
    try {
      const dir = tempDir()
      const job = writeJob(dir, 100)
      const wrong = spawnCli(["run", job], { SVC_BASE_URL: notFound.url, SVC_API_KEY: KEY })
      expect(await wrong.exited).toBe(3)
      expect(wrong.err()).toContain("10 requests in a row were answered 404 Not Found")
      log.entries.length = 0
      const fixed = spawnCli(["run", job], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
      expect(await fixed.exited).toBe(0)
      expect(fixed.out()).toContain("run 1 (resumed) finished: 100 done, 0 failed")
      expect(log.entries).toHaveLength(100)
    } finally {
      await notFound.close()
    }
  }, 60_000)

  it("a run with records done against another origin is refused (exit 2) with the exact command that starts afresh, which works", async () => {
    const dir = tempDir()
    const job = writeJob(dir, 40)
    const started = spawnCli(["run", job, "--max-requests", "5"], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    expect(await started.exited).toBe(6)
    const refused = spawnCli(["run", job], { SVC_BASE_URL: undefined, SVC_API_KEY: undefined })
    expect(await refused.exited).toBe(2)
    const command = `svc-batch run ${job} --new-run`
    expect(refused.err()).toContain(
      `run 1 was started against ${emu.url} and has 5 record(s) done with its answers; this invocation would use the EMULATOR. Resume it against the same service, or start a new run: ${command}`
    )
    const fresh = spawnCli(command.split(" ").slice(1), { SVC_BASE_URL: undefined, SVC_API_KEY: undefined })
    expect(await fresh.exited).toBe(0)
    expect(fresh.out()).toContain("run 2 finished: 40 done, 0 failed")
  }, 60_000)
})

describe("an aborted run resumed with the cause fixed", () => {
  let emu: RunningEmulator
  beforeAll(async () => {
    emu = await emulatorFor({})
  })
  afterAll(() => emu.close())

  it("a service answering 404 aborts; fixed on the server's side, the same command resumes and asks the records the abort failed again: exit 0", async () => {
    // In front of the emulator: 404 for every call until fixed, then passed through.
    let broken = true
    const front = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", async () => {
        if (broken) {
          res.writeHead(404, { "content-type": "application/json" })
          return res.end(JSON.stringify({ message: "Not Found" }))
        }
        const answer = await fetch(`${emu.url}${req.url}`, {
          method: req.method,
          headers: req.headers as Record<string, string>,
          ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {})
        })
        res.writeHead(answer.status, Object.fromEntries(answer.headers))
        res.end(Buffer.from(await answer.arrayBuffer()))
      })
    })
    await new Promise<void>((listening) => front.listen(0, "127.0.0.1", listening))
    try {
      const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`
      const dir = tempDir()
      const job = writeJob(dir, 60)
      const aborted = spawnCli(["run", job], { SVC_BASE_URL: url, SVC_API_KEY: KEY })
      expect(await aborted.exited).toBe(3)
      broken = false
      const fixed = spawnCli(["run", job], { SVC_BASE_URL: url, SVC_API_KEY: KEY })
      expect(await fixed.exited).toBe(0)
      expect(fixed.out()).toContain("run 1 (resumed) finished: 60 done, 0 failed")
      expect(readJsonl(join(dir, "out", "r.jsonl"))).toHaveLength(60)
    } finally {
      await new Promise<void>((closed) => front.close(() => closed()))
    }
  }, 60_000)

  it("a key refused (401) aborts; the same command with the right key resumes it and asks the records the abort failed again: exit 0", async () => {
    const dir = tempDir()
    const job = writeJob(dir, 60)
    const refused = spawnCli(["run", job], { SVC_BASE_URL: emu.url, SVC_API_KEY: "not-the-key" })
    expect(await refused.exited).toBe(3)
    const fixed = spawnCli(["run", job], { SVC_BASE_URL: emu.url, SVC_API_KEY: KEY })
    expect(await fixed.exited).toBe(0)
    expect(fixed.out()).toContain("run 1 (resumed) finished: 60 done, 0 failed")
    expect(readJsonl(join(dir, "out", "r.jsonl"))).toHaveLength(60)
  }, 60_000)
})
