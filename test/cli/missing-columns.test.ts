/**
 * A column the job reads that the input lacks (a typo, a renamed export): where the input declares
 * its columns (CSV header, Parquet schema), exit 2 before any request naming it and listing the
 * input's columns — not every record failing one by one (exit 1).
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
const parquet = new URL("../../data/sample-translation.parquet", import.meta.url).pathname

describe("missing input columns", () => {
  it("CSV: a mapped column the header lacks is exit 2, nothing sent, no ledger run", async () => {
    const dir = tempDir()
    writeFileSync(join(dir, "in.csv"), "id,title,body\n1,Hello,A calm note\n2,Hi,Another\n")
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: cols\npipeline: moderation\nfields: { text: [title, bdy] }\ninput: { path: in.csv, id: id }\noutput: { path: out/r.jsonl }\n"
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain(
      `svc-batch: ${join(dir, "in.csv")}: no column "bdy" (read by stage 1, moderate); the input's columns are: id, title, body`
    )
    expect(existsSync(join(dir, "out", "r.jsonl"))).toBe(false)
    expect(p.out()).not.toContain("requests")
  }, 60_000)

  it("Parquet: the schema is checked the same way, the id column too", async () => {
    const dir = tempDir()
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: pcols\npipeline: moderation\nfields: { text: body }\ninput: { path: ${parquet}, id: record_id }\noutput: { path: out/r.jsonl }\n`
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain(`no column "record_id" (the job's input.id); the input's columns are: id,`)
  }, 60_000)

  it("plan and run --dry-run: the same exit 2 and message as run, not a plan of records refused one by one", async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, "in.csv"),
      `id,heading,body\n${Array.from({ length: 100 }, (_, i) => `${i},Hello ${i},A calm note`).join("\n")}\n`
    )
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: pcols\npipeline: moderation\nfields: { text: title }\ninput: { path: in.csv, id: id }\noutput: { path: out/r.jsonl }\n"
    )
    const message = `svc-batch: ${join(dir, "in.csv")}: no column "title" (read by stage 1, moderate); the input's columns are: id, heading, body`
    for (const args of [
      ["plan", job],
      ["plan", job, "--json"],
      ["run", job, "--dry-run"]
    ]) {
      const p = spawnCli(args, env)
      expect(await p.exited, args.join(" ")).toBe(2)
      expect(p.err()).toContain(message)
      expect(p.out()).not.toContain("refused by")
    }
  }, 60_000)
})
