/**
 * A `when` column that nothing provides, on a JSON Lines input (no header): a typo such as
 * `moderation_verdit` would silently disable its stage (exit 0, the column null on every row). It
 * is refused before any request (exit 2), naming the columns that are known: the keys of the
 * input's first records and the columns earlier stages add.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl, tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

const jobWith = (when: string, records = 20) => {
  const dir = tempDir()
  const lines = Array.from({ length: records }, (_, i) =>
    JSON.stringify({ id: `r${i}`, text: `A calm note ${i}`, lang: i % 2 === 0 ? "en" : "ja" })
  )
  writeFileSync(join(dir, "in.jsonl"), `${lines.join("\n")}\n`)
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    `name: whens\ninput: { path: in.jsonl, id: id }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\nstages:\n  - moderate: { fields: [text] }\n  - translate: { fields: [text], to: en, when: "${when}" }\n`
  )
  return { dir, job }
}

describe("when columns on a JSONL input", () => {
  it("a typo in a when column is exit 2 before any request, through run, plan, run --dry-run and check, naming the known columns", async () => {
    const { dir, job } = jobWith("moderation_verdit == 'safe'")
    const message =
      `svc-batch: ${join(dir, "in.jsonl")}: no column "moderation_verdit" (tested by stage 2's when); the keys of the input's first 20 records are: id, text, lang; ` +
      "earlier stages add: moderation_verdict, moderation_categories, moderation_raw"
    for (const args of [
      ["run", job],
      ["plan", job],
      ["run", job, "--dry-run"],
      ["check", job]
    ]) {
      const p = spawnCli(args, env)
      expect(await p.exited, args.join(" ")).toBe(2)
      expect(p.err(), args.join(" ")).toContain(message)
      expect(p.out(), args.join(" ")).not.toContain("requests")
    }
    expect(existsSync(join(dir, "out", "r.jsonl"))).toBe(false)
  }, 60_000)

  it("a when column only the input has (no earlier stage adds it) is accepted: the stage runs where it holds", async () => {
    const { dir, job } = jobWith("lang == 'ja'")
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(0)
    const rows = readJsonl(join(dir, "out", "r.jsonl"))
    expect(rows).toHaveLength(20)
    expect(rows.filter((r) => r.text_en !== null).map((r) => r.lang)).toEqual(Array(10).fill("ja"))
  }, 60_000)
})
