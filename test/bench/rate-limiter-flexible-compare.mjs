/**
 * The measurement behind the shared rate's design (docs/performance.md), not part of any suite:
 * rate-limiter-flexible's PostgreSQL store (RateLimiterPostgres, 50 points per 1 s window = 3,000/min)
 * as the shared budget of 1, 2 and 4 clients (each its own pg pool, 16 workers that consume a point,
 * or wait the msBeforeNext it answers, then send) against one emulator process limited to 3,000/min.
 * Needs the package, which svc-batch does not depend on, installed anywhere (RLF_DIR: that folder):
 *   (cd /tmp/rlf && npm install rate-limiter-flexible@11.4.0)
 *   RLF_DIR=/tmp/rlf npx tsx test/bench/rate-limiter-flexible-compare.mjs
 */
import pg from "pg"
import { createRequire } from "node:module"
import { spawnCli } from "../cli/spawn-cli.ts"
import { startPostgres } from "../support/postgres.ts"

const { RateLimiterPostgres } = createRequire(`${process.env.RLF_DIR ?? process.cwd()}/`)("rate-limiter-flexible")
const seconds = 20
const warmUp = 2
const server = await startPostgres()
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
try {
  console.log("| clients | consume round trips/s | accepted / limit (3,000/min) | 429s |")
  console.log("|---|---|---|---|")
  for (const clients of [1, 2, 4]) {
    const url = await server.database(`rlf${clients}`)
    const emu = spawnCli([
      "emulator",
      "--port",
      "0",
      "--api-key",
      "k",
      "--rpm",
      "svc3-guard=3000",
      "--latency-ms",
      "20",
      "--jitter-ms",
      "10"
    ])
    const [, base] = await emu.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/)
    const pools = []
    const limiters = []
    for (let c = 0; c < clients; c++) {
      const pool = new pg.Pool({ connectionString: url, max: 4 })
      pools.push(pool)
      limiters.push(
        await new Promise((resolve, reject) => {
          const l = new RateLimiterPostgres(
            { storeClient: pool, tableName: "rlf", points: 50, duration: 1, keyPrefix: "svc3-guard" },
            (e) => (e ? reject(e) : resolve(l))
          )
        })
      )
    }
    const start = Date.now()
    const deadline = start + seconds * 1000
    let consumes = 0
    let rejected = 0
    const accepted = []
    const worker = async (limiter) => {
      while (Date.now() < deadline) {
        consumes++
        try {
          await limiter.consume(base)
        } catch (res) {
          if (res instanceof Error) throw res
          await sleep(res.msBeforeNext)
          continue
        }
        const r = await fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: "Bearer k", "content-type": "application/json" },
          body: JSON.stringify({ model: "svc3-guard", messages: [{ role: "user", content: "fine" }] })
        })
        await r.text()
        if (r.status === 200) accepted.push(Date.now())
        else if (r.status === 429) rejected++
      }
    }
    await Promise.all(limiters.flatMap((l) => Array.from({ length: 16 }, () => worker(l))))
    const from = start + warmUp * 1000
    const within = accepted.filter((t) => t >= from && t < deadline).length
    const rpm = (within * 60_000) / (deadline - from)
    console.log(
      `| ${clients} | ${Math.round(consumes / seconds)} | ${(rpm / 3000).toFixed(3)} | ${((rejected / (accepted.length + rejected)) * 100).toFixed(2)} % (${rejected}) |`
    )
    for (const p of pools) await p.end()
    emu.child.kill("SIGTERM")
    await emu.exited
  }
} finally {
  await server.stop()
}
