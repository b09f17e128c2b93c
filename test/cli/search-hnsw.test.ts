/** `svc-batch search` on a store with `index: hnsw`: the run builds the sidecar index and search answers from it. */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { openHnswSearcher } from "../../src/store/hnsw-index.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
const topics = ["sourdough bread", "bicycle chains", "alpine hiking", "tax returns", "puppy training"]

describe("svc-batch search with store.index: hnsw", () => {
  it("a run writes the index beside the store; search finds the query's own record first", async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, "docs.jsonl"),
      Array.from({ length: 25 }, (_, i) =>
        JSON.stringify({ id: `d${i}`, body: `Guide ${i} explains ${topics[i % 5]} step by step.` })
      ).join("\n") + "\n"
    )
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: kb\ninput: { path: docs.jsonl, id: id }\noutput: { path: out/kb.parquet }\nstages:\n  - embed: { field: body }\nstore: { path: out/kb.sqlite, text: body, index: hnsw }\nreport: { enabled: false }\n"
    )
    const run = spawnCli(["run", job], env)
    expect(await run.exited).toBe(0)
    expect(existsSync(join(dir, "out/kb.sqlite.docs.hnsw"))).toBe(true)
    // The saved index is current (search answers from it, not from the exact fallback).
    const index = openHnswSearcher(
      Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "out/kb.sqlite"), index: "hnsw" })
    )
    expect(index.exact).toBe(false)
    index.close()
    const search = spawnCli(["search", job, "Guide 12 explains alpine hiking step by step.", "-k", "3", "--json"], env)
    expect(await search.exited).toBe(0)
    const hits = search
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: string; distance: number })
    expect(hits).toHaveLength(3)
    expect(hits[0]).toMatchObject({ key: "d12" })
    expect(hits[0]!.distance).toBeLessThan(hits[1]!.distance)
  }, 60_000)

  it("an index: value other than none or hnsw is a job error (exit 2)", async () => {
    const dir = tempDir()
    writeFileSync(join(dir, "docs.jsonl"), "")
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: kb\ninput: { path: docs.jsonl }\noutput: { path: out/kb.jsonl }\nstages:\n  - embed: { field: body }\nstore: { path: out/kb.sqlite, index: ivf }\n"
    )
    const check = spawnCli(["check", job], env)
    expect(await check.exited).toBe(2)
    expect(check.err()).toContain("index")
  }, 30_000)
})
