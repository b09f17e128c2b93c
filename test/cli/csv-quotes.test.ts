/**
 * An unterminated quote in a CSV input, run as a user would: only that row is rejected (with the
 * line where its quote opened), every other row is processed, nothing is in neither file.
 */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl, tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("a CSV row with a bad quote", () => {
  it("costs that row only: 9 rows done, the bad one rejected at its line, exit 1", async () => {
    const dir = tempDir()
    const rows = Array.from({ length: 10 }, (_, i) =>
      i === 3 ? `${i},"an unterminated quote` : `${i},"row ${i}, calm\nand multi-line"`
    )
    writeFileSync(join(dir, "in.csv"), `id,text\n${rows.join("\n")}\n`)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: quotes\npipeline: moderation\nfields: { text: text }\ninput: { path: in.csv, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n"
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    expect(p.out()).toContain("finished: 9 done, 0 failed, 1 unreadable")
    expect(readJsonl(join(dir, "out", "r.jsonl")).map((r) => r.id)).toEqual([
      "0",
      "1",
      "2",
      "4",
      "5",
      "6",
      "7",
      "8",
      "9"
    ])
    const rejects = readJsonl(join(dir, "out", "r.rejects.jsonl"))
    expect(rejects).toEqual([
      expect.objectContaining({ line: 8, status: "unreadable", raw: '3,"an unterminated quote' })
    ])
    expect(String(rejects[0]!.reason)).toContain("the quote opened on line 8 is not closed properly")
  }, 60_000)
})
