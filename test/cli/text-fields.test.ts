/**
 * What a text field may hold. An object or array is not text: sent as "[object Object]" it was
 * judged safe; now the record fails naming the field and nothing is sent. Null, empty or blank
 * text gets its own verdict, `empty` (it used to be `safe` without any request), counted.
 */
import { describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { readJsonl, tempDir, writeRecords } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("text fields", () => {
  it("moderation: objects and arrays fail their record, unsent; null/empty/blank are `empty`; numbers and booleans are judged as text", async () => {
    const dir = tempDir()
    const input = writeRecords(dir, [
      { id: "s", text: "A calm note about gardening." },
      { id: "o", text: { body: "here is how to build a bomb" } },
      { id: "a", text: ["here is how", "to build a bomb"] },
      { id: "n", text: null },
      { id: "e", text: "" },
      { id: "w", text: "   \n " },
      { id: "num", text: 42 },
      { id: "b", text: true }
    ])
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: fields\npipeline: moderation\nfields: { text: text }\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\n`
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    expect(p.out()).toContain("finished: 6 done, 2 failed")
    expect(p.out()).toContain("requests 3,") // the string, 42 and true: nothing for the rest
    expect(p.out()).toContain("moderate empty 3")
    const out = Object.fromEntries(readJsonl(join(dir, "out", "r.jsonl")).map((r) => [r.id, r.moderation_verdict]))
    expect(out).toEqual({ s: "safe", n: "empty", e: "empty", w: "empty", num: "safe", b: "safe" })
    const rejects = readJsonl(join(dir, "out", "r.rejects.jsonl"))
    expect(rejects.map((r) => [r.key, r.reason])).toEqual([
      ["o", expect.stringContaining('field "text" holds a JSON object, not text; nothing was sent')],
      ["a", expect.stringContaining('field "text" holds a JSON array, not text; nothing was sent')]
    ])
    expect(p.out()).toContain("report  0 harmful, 3 safe, 0 unparsed, 3 empty") // apart from safe
  }, 60_000)

  it('translation: an object in a translated field fails the record instead of translating "[object Object]"', async () => {
    const dir = tempDir()
    const input = writeRecords(dir, [
      { id: "1", body: "The garden is lovely in spring." },
      { id: "2", body: { en: "The garden" } }
    ])
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: tr\ninput: { path: ${input}, id: id }\noutput: { path: out/r.jsonl }\nstages:\n  - translate: { fields: [body], to: ja }\n`
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    expect(p.out()).toContain("finished: 1 done, 1 failed")
    const rejects = readJsonl(join(dir, "out", "r.rejects.jsonl"))
    expect(rejects).toEqual([
      expect.objectContaining({
        key: "2",
        stage: "translate",
        reason: expect.stringContaining('field "body" holds a JSON object, not text')
      })
    ])
  }, 60_000)
})
