/**
 * A standalone `svc-batch emulator` identifies itself, so its answers are keyed as the emulator's
 * (with the knobs that change answers), not by its port: a rerun against another one on another
 * port, or the embedded one, is warm.
 */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const startEmulator = async (...flags: ReadonlyArray<string>) => {
  const p = spawnCli(["emulator", "--port", "0", ...flags])
  const [, url] = await p.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/)
  return {
    url: url!,
    stop: async () => {
      p.child.kill("SIGTERM")
      await p.exited
    }
  }
}

describe("answers of a standalone emulator", () => {
  it("are keyed by its answer knobs, not its port: a second emulator on another port, and the embedded one, answer from the ledger", async () => {
    const dir = tempDir()
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: emu-origin\npipeline: moderation\nfields: { text: text }\ninput: { path: ${writeCorpus(dir, 30)}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )
    const first = await startEmulator("--latency-ms", "1")
    // Started while the first still listens: another port, for sure.
    const second = await startEmulator("--error-500-rate", "0.2", "--fault-seed", "7")
    const nonconforming = await startEmulator("--nonconforming-rate", "0.5")
    try {
      expect(second.url).not.toBe(first.url)
      const cold = spawnCli(["run", job], { SVC_BASE_URL: first.url, SVC_API_KEY: "any" })
      expect(await cold.exited).toBe(0)
      expect(cold.out()).toContain(`EMULATOR (standalone at ${first.url}, nonconforming-rate=0)`)
      expect(cold.out()).toContain("requests 30, cache hits 0")

      // Faults do not change an answer: the same keying, every answer from the ledger.
      const warm = spawnCli(["run", job], { SVC_BASE_URL: second.url, SVC_API_KEY: "any" })
      expect(await warm.exited).toBe(0)
      expect(warm.out()).toContain("requests 0, cache hits 30")

      // The embedded emulator with the same answer knobs shares them too.
      const embedded = spawnCli(["run", job], { SVC_BASE_URL: undefined, SVC_API_KEY: undefined })
      expect(await embedded.exited).toBe(0)
      expect(embedded.out()).toContain("requests 0, cache hits 30")

      // --nonconforming-rate changes which answers are usable: not the same answers.
      const other = spawnCli(["run", job], { SVC_BASE_URL: nonconforming.url, SVC_API_KEY: "any" })
      expect(await other.exited).toBe(0)
      expect(other.out()).toContain("requests 30, cache hits 0")
    } finally {
      await Promise.all([first.stop(), second.stop(), nonconforming.stop()])
    }
  }, 90_000)
})
