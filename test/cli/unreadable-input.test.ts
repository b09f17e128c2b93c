/**
 * An input that cannot be read — truncated or not Parquet at all, a directory — is exit 2 with one
 * line naming the file and the reason, before any request; not a stack trace and exit 1.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }
const parquet = new URL("../../data/sample-translation.parquet", import.meta.url).pathname

const jobFor = (dir: string, input: string) => {
  const job = join(dir, `job-${input.replace(/\W/g, "_")}.yaml`)
  writeFileSync(
    job,
    `name: unreadable\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input} }\noutput: { path: out/r.jsonl }\n`
  )
  return job
}

describe("unreadable input", () => {
  const dir = tempDir()
  writeFileSync(join(dir, "truncated.parquet"), readFileSync(parquet).subarray(0, 3000))
  writeFileSync(join(dir, "not.parquet"), "id,text\n1,hello\n")
  mkdirSync(join(dir, "folder.csv"))
  mkdirSync(join(dir, "folder.jsonl"))
  const cases = [
    ["truncated.parquet", "cannot read Parquet: parquet file invalid (footer != PAR1)"],
    ["not.parquet", "cannot read Parquet: parquet file invalid (footer != PAR1)"],
    ["folder.csv", "cannot read the input: a directory, not a file"],
    ["folder.jsonl", "cannot read the input: a directory, not a file"]
  ] as const
  for (const [name, reason] of cases) {
    for (const command of ["run", "plan"]) {
      it(`${command} ${name}: exit 2, one line naming the file and the reason`, async () => {
        const p = spawnCli([command, jobFor(dir, name)], env)
        expect(await p.exited).toBe(2)
        const lines = p
          .err()
          .split("\n")
          .filter((l) => l !== "" && !l.startsWith("["))
        expect(lines).toEqual([`svc-batch: ${join(dir, name)}: ${reason}`])
      }, 30_000)
    }
  }
})
