/**
 * A run whose every record failed keeps the previous output and its rejects file together: its own
 * output and rejects go beside them under the run's name (`<stem>.run-<id>.<ext>`).
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("a run whose every record failed", () => {
  it("keeps the previous output with its rejects; writes its own output and rejects beside them", async () => {
    const dir = tempDir()
    // 5 records (fewer than the 10 failures in a row that abort a run) and a line that cannot be read.
    const lines = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({ id: `r${i}`, text: `Record ${i}: a calm note.` })
    )
    lines.splice(3, 0, "{broken")
    writeFileSync(join(dir, "in.jsonl"), `${lines.join("\n")}\n`)
    const job = `name: allfail\npipeline: moderation\nfields: { text: text }\ninput: { path: in.jsonl, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    writeFileSync(join(dir, "good.yaml"), job)
    // The same job against an emulator that answers every request 500.
    writeFileSync(join(dir, "bad.yaml"), `${job}emulator: { error500Rate: 1 }\n`)
    const output = join(dir, "out", "r.jsonl")
    const rejects = join(dir, "out", "r.rejects.jsonl")

    const good = spawnCli(["run", join(dir, "good.yaml")], env)
    expect(await good.exited).toBe(1) // the unreadable line
    const previous = { output: readFileSync(output, "utf8"), rejects: readFileSync(rejects, "utf8") }
    expect(
      previous.rejects
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).status)
    ).toEqual(["unreadable"])

    const bad = spawnCli(["run", join(dir, "bad.yaml"), "--cache", "off", "--max-attempts", "1"], env)
    expect(await bad.exited).toBe(1)
    expect(bad.out()).toContain("run 2 finished: 0 done, 5 failed, 1 unreadable")
    const beside = { output: join(dir, "out", "r.run-2.jsonl"), rejects: join(dir, "out", "r.rejects.run-2.jsonl") }
    // The pair of the previous run as it was; this run's pair beside it.
    expect(readFileSync(output, "utf8")).toBe(previous.output)
    expect(readFileSync(rejects, "utf8")).toBe(previous.rejects)
    expect(readFileSync(beside.output, "utf8")).toBe("")
    const own = readFileSync(beside.rejects, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: string })
    expect(own.map((r) => r.status).sort()).toEqual([
      "ServerError",
      "ServerError",
      "ServerError",
      "ServerError",
      "ServerError",
      "unreadable"
    ])
    expect(bad.out()).toContain(`  output  ${beside.output}\n  rejects ${beside.rejects}\n`)
    expect(bad.err()).toContain(
      `svc-batch: every record failed: the previous output ${output} is kept with its rejects ${rejects}; this run's are ${beside.output} and ${beside.rejects}`
    )
  }, 120_000)
})
