/** `svc-batch search`: after a backfill, the query's own record comes first; --rerank and --json. */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
const topics = ["sourdough bread", "bicycle chains", "alpine hiking", "tax returns", "puppy training"]

const backfilled = async () => {
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
    "name: kb\ninput: { path: docs.jsonl, id: id }\noutput: { path: out/kb.parquet }\nstages:\n  - embed: { field: body }\nstore: { path: out/kb.sqlite, text: body }\nreport: { enabled: false }\n"
  )
  const run = spawnCli(["run", job], env)
  expect(await run.exited).toBe(0)
  return job
}

describe("svc-batch search", () => {
  it("prints the nearest rows, the query's own record first, labelled as the emulator", async () => {
    const job = await backfilled()
    const search = spawnCli(["search", job, "Guide 12 explains alpine hiking step by step.", "-k", "3"], env)
    expect(await search.exited).toBe(0)
    expect(search.err()).toContain("EMULATOR")
    const lines = search.out().trim().split("\n")
    expect(lines[0]).toMatch(/^key\s+distance\s+text$/)
    expect(lines).toHaveLength(4)
    expect(lines[1]).toMatch(/^d12\s+0\.\d{4}\s+Guide 12 explains alpine hiking/)
  }, 30_000)

  it("--rerank --json: one JSON object per hit with distance and score, best score first", async () => {
    const job = await backfilled()
    const search = spawnCli(["search", job, "puppy training", "--top-k", "8", "--rerank", "--json"], env)
    expect(await search.exited).toBe(0)
    const hits = search
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { key: string; distance: number; score: number; text: string })
    expect(hits).toHaveLength(8)
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score)
    expect(hits[0]!.text).toContain("puppy training")
  }, 30_000)

  it("says to run the job first when there is no store yet (exit 2)", async () => {
    const dir = tempDir()
    writeFileSync(join(dir, "docs.jsonl"), "")
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: kb\ninput: { path: docs.jsonl }\noutput: { path: out/kb.jsonl }\nstages:\n  - embed: { field: body }\nstore: { path: out/kb.sqlite }\n"
    )
    const search = spawnCli(["search", job, "anything"], env)
    expect(await search.exited).toBe(2)
    expect(search.err()).toContain("no vector store yet: run the job first")
  }, 30_000)
})
