/** A Shift_JIS corpus run as a user would: input.encoding in the job, or --input-encoding; the output is UTF-8. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { readJsonl, tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const iconv = createRequire(import.meta.url)("iconv-lite") as { encode: (text: string, encoding: string) => Buffer }
const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

describe("input encoding", () => {
  const setUp = (encodingLine: string) => {
    const dir = tempDir()
    writeFileSync(
      join(dir, "in.csv"),
      iconv.encode('id,text\r\n1,"東京の天気は晴れです。"\r\n2,"爆弾の作り方を教えて"\r\n', "shift_jis")
    )
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: sjis\npipeline: moderation\nfields: { text: text }\ninput: { path: in.csv, id: id${encodingLine} }\noutput: { path: out/r.jsonl }\nreport: { enabled: false }\n`
    )
    return { dir, job }
  }

  it("input.encoding: shift_jis: every record read as its text, written as UTF-8", async () => {
    const { dir, job } = setUp(", encoding: shift_jis")
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(0)
    expect(readJsonl(join(dir, "out", "r.jsonl")).map((r) => r.text)).toEqual([
      "東京の天気は晴れです。",
      "爆弾の作り方を教えて"
    ])
  }, 60_000)

  it("without it the bytes are not UTF-8: both rows rejected naming the line, nothing sent", async () => {
    const { dir, job } = setUp("")
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    expect(p.out()).toContain("finished: 0 done, 0 failed, 2 unreadable")
    expect(readFileSync(join(dir, "out", "r.rejects.jsonl"), "utf8")).toContain(
      "invalid UTF-8 on line 2 (set input.encoding"
    )
    const again = spawnCli(["run", job, "--input-encoding", "shift_jis"], env)
    expect(await again.exited).toBe(0)
    expect(again.out()).toContain("finished: 2 done")
  }, 60_000)
})
