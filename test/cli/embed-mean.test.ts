/**
 * `long: mean` through the command: a chunked record's vector is the same in the output of a fresh
 * run and of a rerun answered by the ledger, and equals what the store keeps (issue 25, item 10).
 */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl, tempDir } from "../engine/run-helpers.ts"
import { storedVector } from "../store/stored-vector.ts"
import { spawnCli } from "./spawn-cli.ts"

const long = Array.from(
  { length: 400 },
  (_, i) => `Paragraph ${i} describes river ${i % 17} and the bridge at mile ${i * 3}.`
).join(" ")

describe("svc-batch run, embed with long: mean", () => {
  it("a fresh run and a rerun from the ledger write the chunked record's mean bit for bit alike, as the store keeps it", async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, "docs.jsonl"),
      [
        { id: "short", body: "A short note about rivers." },
        { id: "long", body: long }
      ]
        .map((r) => JSON.stringify(r))
        .join("\n") + "\n"
    )
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      [
        "name: mean-vectors",
        "input: { path: docs.jsonl, id: id }",
        "output: { path: out/vectors.jsonl }",
        "stages:",
        "  - embed: { field: body, long: mean, maxTokensPerCall: 1000 }",
        "store: { path: out/vectors.sqlite, text: body }",
        "report: { enabled: false }"
      ].join("\n") + "\n"
    )
    const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
    const vectors: Array<Array<number>> = []
    for (let i = 0; i < 2; i++) {
      const run = spawnCli(["run", job], env)
      expect(await run.exited).toBe(0)
      if (i === 1) expect(run.out()).toMatch(/requests 0\b/)
      vectors.push(
        readJsonl(join(dir, "out", "vectors.jsonl")).find((r) => r.id === "long")!.embedding as Array<number>
      )
    }
    const [fresh, rerun] = vectors
    expect(fresh).toHaveLength(1536)
    expect(rerun!.every((v, d) => Object.is(v, fresh![d]))).toBe(true)
    expect(storedVector(join(dir, "out", "vectors.sqlite"), "long")).toEqual(fresh)
  }, 60_000)
})
