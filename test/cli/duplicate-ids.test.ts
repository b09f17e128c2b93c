/**
 * Records sharing an id: counted and named in the summary; where the output is keyed by id (the
 * vector store), the later ones go to the rejects file with the reason instead of replacing the first.
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl, tempDir, writeRecords } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
const records = [
  { id: "a", body: "Gardening in spring." },
  { id: "b", body: "Repairing a bicycle chain." },
  { id: "a", body: "A different text under the same id." },
  { id: "c", body: "Baking sourdough bread." },
  { id: "b", body: "Another twin." },
  { id: "a", body: "A third one." }
]

describe("duplicate ids", () => {
  it("moderation to a file: every record written, the repeats counted and named in the summary", async () => {
    const dir = tempDir()
    const input = writeRecords(dir, records)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: dups\npipeline: moderation\nfields: { text: body }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(0)
    expect(p.out()).toContain('ids     3 record(s) repeat the id of an earlier record (2 id(s), e.g. "a", "b")')
    expect(readJsonl(join(dir, "out", "r.jsonl")).length).toBe(6)
  }, 60_000)

  it("into a vector store: the first record with an id is stored, the later ones rejected with the line of the first, exit 1", async () => {
    const dir = tempDir()
    const input = writeRecords(dir, records)
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: dupstore\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nstages:\n  - embed: { field: body }\nstore: { format: sqlite-vec, path: out/v.sqlite, table: docs, text: body }\nreport: { enabled: false }\n`
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    expect(p.out()).toContain("3 rejected: the store keeps the first record with an id")
    const rejects = readJsonl(join(dir, "out", "r.rejects.jsonl"))
    expect(rejects.map((r) => [r.line, r.status, r.reason])).toEqual([
      [3, "duplicate id", "duplicate id a (first at line 1): the store keeps the first record with an id"],
      [5, "duplicate id", "duplicate id b (first at line 2): the store keeps the first record with an id"],
      [6, "duplicate id", "duplicate id a (first at line 1): the store keeps the first record with an id"]
    ])
    expect(readJsonl(join(dir, "out", "r.jsonl")).map((r) => r.id)).toEqual(["a", "b", "c"])
    const db = new Database(join(dir, "out", "v.sqlite"), { readonly: true })
    const docs = db.prepare("SELECT record_key FROM docs_records ORDER BY record_key").all()
    db.close()
    expect(docs).toEqual([{ record_key: "a" }, { record_key: "b" }, { record_key: "c" }])
  }, 60_000)
})
