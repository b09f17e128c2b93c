/**
 * A service that takes the request and never answers: each attempt ends at SVC_TIMEOUT_MS, and the
 * run aborts after the streak (exit 3) naming timeouts — through the bin as run (in CI, the built
 * bundle with its stand-in for undici, whose timers end the attempts).
 */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { KEY } from "../helpers.ts"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

/** A loopback server that reads each POST and never answers it (a GET gets a 404 at once). */
const startSilentServer = async () => {
  const held: Array<ServerResponse> = []
  let posts = 0
  const server: Server = createServer((req, res) => {
    req.resume()
    if (req.method !== "POST") {
      res.writeHead(404).end()
      return
    }
    posts++
    held.push(res)
  })
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts: () => posts,
    close: () => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      return new Promise<void>((closed) => server.close(() => closed()))
    }
  }
}

describe("a service that never answers", () => {
  it("each attempt ends at SVC_TIMEOUT_MS; after the streak the run stops with exit 3 naming timeouts", async () => {
    const server = await startSilentServer()
    try {
      const dir = tempDir()
      const job = join(dir, "job.yaml")
      writeFileSync(
        job,
        `name: silent\npipeline: moderation\nfields: { text: text }\ninput: { path: ${writeCorpus(dir, 40)}, id: id }\noutput: { path: out/r.jsonl }\nlimits: { concurrency: 4, maxAttempts: 1, rpm: { "*": 600000 } }\nreport: { enabled: false }\n`
      )
      const t0 = performance.now()
      const run = spawnCli(["run", job], { SVC_BASE_URL: server.url, SVC_API_KEY: KEY, SVC_TIMEOUT_MS: "300" })
      expect(await run.exited).toBe(3)
      const seconds = (performance.now() - t0) / 1000
      expect(run.err()).toMatch(/10 requests in a row timed out \(chat request timed out after 300ms\)/)
      // Ten attempts in a row, four at a time, 0.3 s each (+ up to ~1 s of undici's timer
      // resolution): far less than a minute, and no attempt was left waiting for an answer.
      expect(server.posts()).toBeGreaterThanOrEqual(10)
      expect(seconds).toBeLessThan(30)
    } finally {
      await server.close()
    }
  })
})
