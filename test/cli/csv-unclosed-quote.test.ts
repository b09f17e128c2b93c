/**
 * `input.unclosedQuote: stop`, run as a user would (the emulator, a real process): a CSV quote that
 * is not closed properly stops the run with exit 2 naming the line where it opened, no output;
 * `reject` (the default) rejects that row and reads on.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl, tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

const setUp = (mode: string) => {
  const dir = tempDir()
  const rows = [
    "id,text",
    "1,hello there",
    '2,"a quoted\r\nnewline"',
    '3,"this quote never closes',
    "4,fine",
    "5,also fine"
  ]
  writeFileSync(join(dir, "in.csv"), rows.join("\r\n") + "\r\n")
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: unclosed\npipeline: moderation\nfields: { text: text }\ninput: { path: in.csv, id: id${mode} }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
  )
  return { dir, job }
}

describe("input.unclosedQuote", () => {
  it("stop: exit 2 naming the line where the quote opened, no output", async () => {
    const { dir, job } = setUp(", unclosedQuote: stop")
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(2)
    expect(p.out() + p.err()).toContain(
      "the quote opened on line 5 is never closed (the file ends inside it); the run stops there (input.unclosedQuote: stop)"
    )
    expect(existsSync(join(dir, "out", "r.jsonl"))).toBe(false)
  }, 60_000)

  it("reject: that row only is rejected at its line, every other row is in the output", async () => {
    const { dir, job } = setUp(", unclosedQuote: reject")
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    const out = readJsonl(join(dir, "out", "r.jsonl"))
    expect(out.map((r) => r.id)).toEqual(["1", "2", "4", "5"])
    expect(out.find((r) => r.id === "2")!.text).toBe("a quoted\r\nnewline")
    expect(readJsonl(join(dir, "out", "r.rejects.jsonl"))).toEqual([
      expect.objectContaining({ line: 5, raw: '3,"this quote never closes' })
    ])
  }, 60_000)

  it("an unknown value is refused with exit 2", async () => {
    const { job } = setUp(", unclosedQuote: ignore")
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(2)
    expect(p.out() + p.err()).toMatch(/unclosedQuote/)
  }, 60_000)
})
