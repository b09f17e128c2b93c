/**
 * A backfill killed with SIGKILL mid-run, then run again: the store and the ledger agree and are
 * complete (one vector per record), and the second run sends no request for what was committed.
 */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { openStoreDatabase } from "../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { tempDir } from "../engine/run-helpers.ts"
import { doneInLedger } from "./ledger-probe.ts"
import { spawnCli } from "./spawn-cli.ts"

const N = 600

describe("backfill crash", () => {
  it("SIGKILL mid-backfill, rerun: store and ledger consistent and complete", async () => {
    const dir = tempDir()
    const input = join(dir, "docs.jsonl")
    writeFileSync(
      input,
      Array.from({ length: N }, (_, i) =>
        JSON.stringify({ id: `d${i}`, body: `Note ${i}: the ${i % 13} herons by lake ${i % 7}.` })
      ).join("\n") + "\n"
    )
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      [
        "name: crash-backfill",
        "input: { path: docs.jsonl, id: id }",
        "output: { path: out/vectors.parquet }",
        "stages:",
        "  - embed: { field: body }",
        "store: { path: out/vectors.sqlite, text: body }",
        "limits: { concurrency: 8, records: 16 }",
        "emulator: { latencyMs: 15 }",
        "report: { enabled: false }"
      ].join("\n") + "\n"
    )
    const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
    const ledger = join(dir, ".svc-batch", "crash-backfill.ledger.sqlite")
    const first = spawnCli(["run", job], env)
    while (doneInLedger(ledger) < 150) await new Promise((r) => setTimeout(r, 20))
    first.child.kill("SIGKILL")
    expect(await first.exited).toBe(-1)
    const committed = doneInLedger(ledger)
    expect(committed).toBeLessThan(N)

    const second = spawnCli(["run", job], env)
    expect(await second.exited).toBe(0)
    expect(second.out()).toContain(`(resumed) finished: ${N} done, 0 failed`)
    const requests = Number(second.out().match(/requests (\d+)/)![1])
    expect(requests).toBeLessThanOrEqual(N - committed)
    expect(second.out()).toMatch(new RegExp(`store .*: ${N} records written, 0 unchanged, 0 deleted`))

    const store = openStoreDatabase(
      Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "out", "vectors.sqlite") }),
      { create: false }
    )
    const keys = (store.prepare("SELECT key FROM docs").all() as Array<{ key: string }>).map((r) => r.key)
    const tracked = (store.prepare("SELECT count(*) AS n FROM docs_records").get() as { n: number }).n
    store.close()
    expect(new Set(keys)).toEqual(new Set(Array.from({ length: N }, (_, i) => `d${i}`)))
    expect(keys).toHaveLength(N)
    expect(tracked).toBe(N)
    expect(doneInLedger(ledger)).toBe(N)
  }, 60_000)
})
