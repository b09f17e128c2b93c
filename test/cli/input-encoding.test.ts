/** A Shift_JIS corpus run as a user would: input.encoding in the job, or --input-encoding; the output is UTF-8. */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
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

describe("a Shift_JIS file read as UTF-8", () => {
  /** 20 rows: every third ASCII (readable as UTF-8), the rest Japanese in Shift_JIS (not UTF-8). */
  const setUp = () => {
    const dir = tempDir()
    const rows = Array.from({ length: 20 }, (_, i) =>
      (i + 1) % 3 === 0 ? `${i + 1},"hello world ${i + 1}"` : `${i + 1},"東京の天気は晴れです ${i + 1}"`
    )
    writeFileSync(join(dir, "in.csv"), iconv.encode(`id,text\r\n${rows.join("\r\n")}\r\n`, "shift_jis"))
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: sjis\npipeline: moderation\nfields: { text: text }\ninput: { path: in.csv, id: id }\noutput: { path: out/r.jsonl }\n`
    )
    return { dir, job }
  }

  it("the summary counts the rows read and unreadable, not only the records, and suggests input.encoding once", async () => {
    const { job } = setUp()
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    expect(p.out()).toContain("20 rows read, 14 unreadable; 6/6 records")
    expect(p.out().split("most rejected rows are not UTF-8 (14 of 14): set input.encoding")).toHaveLength(2)
  }, 60_000)

  it("plan and run --dry-run suggest input.encoding", async () => {
    const { job } = setUp()
    for (const args of [
      ["plan", job],
      ["run", job, "--dry-run"]
    ]) {
      const p = spawnCli(args, env)
      expect(await p.exited).toBe(0)
      expect(p.out()).toContain("most rejected rows are not UTF-8 (14 of 14): set input.encoding (e.g. shift_jis)")
    }
  }, 60_000)

  it("the report says it too, after the run and rebuilt by report", async () => {
    const { dir, job } = setUp()
    expect(await spawnCli(["run", job], env).exited).toBe(1)
    const markdown = () => readFileSync(join(dir, "out", "r.report.md"), "utf8")
    expect(markdown()).toContain("> most rejected rows are not UTF-8 (14 of 14): set input.encoding")
    rmSync(join(dir, "out", "r.report.md"))
    const report = spawnCli(["report", job], env)
    expect(await report.exited).toBe(0)
    expect(report.out()).toContain("note    most rejected rows are not UTF-8 (14 of 14)")
    expect(markdown()).toContain("> most rejected rows are not UTF-8 (14 of 14)")
  }, 60_000)

  it("no suggestion when most rejected rows are unreadable for another reason", async () => {
    const dir = tempDir()
    const lines = ["{not json", "{not json either", JSON.stringify({ id: "3", text: "fine" })]
    writeFileSync(
      join(dir, "in.jsonl"),
      Buffer.concat([Buffer.from(`${lines.join("\n")}\n`), iconv.encode('{"id":"4","text":"東京"}\n', "shift_jis")])
    )
    const job = join(dir, "job.yaml")
    writeFileSync(
      job,
      `name: mixed\npipeline: moderation\nfields: { text: text }\ninput: { path: in.jsonl, id: id }\noutput: { path: out/r.jsonl }\n`
    )
    const p = spawnCli(["run", job], env)
    expect(await p.exited).toBe(1)
    expect(p.out()).toContain("4 rows read, 3 unreadable")
    expect(p.out()).not.toContain("not UTF-8")
  }, 60_000)
})
