/**
 * `svc-batch run`'s flags are checked as strictly as the job file: they decode through the same
 * Schemas (same ranges, same words), and an rpm must name a model the job uses. Real processes;
 * every refusal is exit 2 before anything runs.
 */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir, writeCorpus } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const clean = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

const writeJob = (dir: string, extra = "") => {
  const path = join(dir, "job.yaml")
  writeFileSync(
    path,
    `name: opts\npipeline: moderation\ninput:\n  path: ${writeCorpus(dir, 3)}\n  id: id\noutput:\n  path: out/result.jsonl\nfields:\n  text: text\nreport: { enabled: false }\n${extra}`
  )
  return path
}

describe("svc-batch run: flags decode like the job file", () => {
  for (const [flag, value, field, message] of [
    ["--records", "0", "records", "Expected a positive number, actual 0"],
    ["--concurrency", "0", "concurrency", "Expected a positive number, actual 0"],
    ["--concurrency", "-3", "concurrency", "Expected a positive number, actual -3"],
    ["--max-attempts", "0", "maxAttempts", "Expected a positive number, actual 0"],
    ["--grace-ms", "-1", "graceMs", "Expected a non-negative number, actual -1"]
  ] as const) {
    it(`${flag} ${value}: exit 2 with the job file's own message for limits.${field}`, async () => {
      const dir = tempDir()
      const byFlag = spawnCli(["run", writeJob(dir), flag, value], clean)
      expect(await byFlag.exited).toBe(2)
      expect(byFlag.err()).toContain(`${flag}: ${message}`)
      const other = tempDir()
      const byFile = spawnCli(["run", writeJob(other, `limits:\n  ${field}: ${value}\n`)], clean)
      expect(await byFile.exited).toBe(2)
      expect(byFile.err()).toContain(`limits.${field}: ${message}`)
    })
  }

  it("--rpm 0: exit 2 (a rate of zero would never send)", async () => {
    const p = spawnCli(["run", writeJob(tempDir()), "--rpm", "0"], clean)
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain("--rpm: *: Expected a positive number, actual 0")
  })

  it("--rpm for a model no stage uses (a typo): exit 2 naming the models used", async () => {
    const p = spawnCli(["run", writeJob(tempDir()), "--rpm", "svc3-gaurd=60"], clean)
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain(`--rpm: "svc3-gaurd": no stage of this job uses this model (used: svc3-guard;`)
  })

  it("limits.rpm in the job file for a model no stage uses: exit 2 naming the file and the models used", async () => {
    const dir = tempDir()
    const job = writeJob(dir, "limits:\n  rpm: { svc3-guard: 600, translat: 100 }\n")
    const p = spawnCli(["run", job], clean)
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain(`${job}: limits.rpm: "translat": no stage of this job uses this model (used: svc3-guard;`)
  })

  it("--rpm for the models used (and * for the rest) runs", async () => {
    const p = spawnCli(["run", writeJob(tempDir()), "--rpm", "svc3-guard=6000,*=100", "--records", "1"], clean)
    expect(await p.exited).toBe(0)
    expect(p.out()).toContain("finished: 3 done")
  })

  it("--input naming a file that does not exist: exit 2 blaming the flag, not the job file", async () => {
    const dir = tempDir()
    const job = writeJob(dir)
    const p = spawnCli(["run", job, "--input", join(dir, "some.csv")], clean)
    expect(await p.exited).toBe(2)
    expect(p.err()).toContain(`svc-batch: --input: input file not found: ${join(dir, "some.csv")}`)
    expect(p.err()).not.toContain("job.yaml")
  }, 30_000)
})

describe("svc-batch run: the input's record count in the header", () => {
  it("JSON Lines: blank lines are not counted (7 records and a blank line: 7, not 8)", async () => {
    const dir = tempDir()
    const input = join(dir, "blank-line.jsonl")
    const records = Array.from({ length: 7 }, (_, i) => JSON.stringify({ id: `r${i}`, text: `calm note ${i}` }))
    writeFileSync(input, `${records.slice(0, 4).join("\n")}\n\n${records.slice(4).join("\n")}\n`)
    const p = spawnCli(["run", writeJob(dir), "--input", input], clean)
    expect(await p.exited).toBe(0)
    expect(p.out()).toContain(`  input   ${input} (jsonl, 7 records)`)
  }, 30_000)
})
