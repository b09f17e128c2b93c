/**
 * JSON Lines declares no columns: a CSV or Parquet output carries every key met in the input,
 * not only the first record's. Real processes on the embedded emulator.
 */
import { describe, expect, it } from "@effect/vitest"
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const clean = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

const setUp = () => {
  const dir = tempDir()
  writeFileSync(
    join(dir, "in.jsonl"),
    '{"id":"a","text":"a calm note"}\n{"id":"b","text":"another","lang":"en"}\n{"id":"c","text":"a third","score":3,"lang":"ja"}\n'
  )
  const job = join(dir, "job.yaml")
  writeFileSync(
    job,
    "name: keys\npipeline: moderation\ninput:\n  path: in.jsonl\n  id: id\noutput:\n  path: out/result.csv\nfields:\n  text: text\nreport: { enabled: false }\n"
  )
  return { dir, job }
}

describe("JSONL input to a columnar output", () => {
  it("CSV: keys absent from the first record are columns too, empty where a record lacks them", async () => {
    const { dir, job } = setUp()
    const p = spawnCli(["run", job], clean)
    expect(await p.exited).toBe(0)
    const lines = readFileSync(join(dir, "out", "result.csv"), "utf8")
      .replace(/^\uFEFF/, "")
      .trim()
      .split(/\r?\n/)
    expect(lines[0]).toBe("id,text,lang,score,moderation_verdict,moderation_categories,moderation_raw")
    expect(lines[1]).toBe("a,a calm note,,,safe,,")
    expect(lines[3]).toBe("c,a third,ja,3,safe,,")
  })

  it("Parquet: the same columns", async () => {
    const { dir, job } = setUp()
    const output = join(dir, "out", "result.parquet")
    const p = spawnCli(["run", job, "--output", output], clean)
    expect(await p.exited).toBe(0)
    const rows = await parquetReadObjects({ file: await asyncBufferFromFile(output) })
    expect(rows.map((r) => [r.id, r.lang, r.score])).toEqual([
      ["a", null, null],
      ["b", "en", null],
      ["c", "ja", 3]
    ])
  })
})

describe("a CSV input with a header and no rows", () => {
  it("writes an output whose header has the input's columns and the stage's", async () => {
    const dir = tempDir()
    writeFileSync(join(dir, "in.csv"), "id,title,body\r\n")
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      "name: empty\npipeline: moderation\ninput:\n  path: in.csv\n  id: id\noutput:\n  path: out/result.csv\nfields:\n  text: [title, body]\nreport: { enabled: false }\n"
    )
    const p = spawnCli(["run", job], clean)
    expect(await p.exited).toBe(0)
    expect(p.out()).toContain("finished: 0 done, 0 failed, 0 unreadable")
    const text = readFileSync(join(dir, "out", "result.csv"), "utf8").replace(/^\uFEFF/, "")
    expect(text.trim()).toBe("id,title,body,moderation_verdict,moderation_categories,moderation_raw")
  })
})
