/**
 * A job `run` refuses is refused by `plan`, `check`, `run --dry-run`, `retry` and `gc` too, with the
 * same exit code and message: `check && run` in a cron line must not pass at night and then fail.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { spawnCli } from "./spawn-cli.ts"
import { moderationJob } from "./moderation-job.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

/** The one error line a refusal prints. */
const refusal = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("svc-batch: "))

const refused: ReadonlyArray<{
  readonly what: string
  readonly tail: string
  readonly output?: string
  readonly says: string
}> = [
  {
    what: "an rpm for a model no stage uses (a typo)",
    tail: "limits: { rpm: { svc3-gaurd: 100 } }\n",
    says: 'limits.rpm: "svc3-gaurd": no stage of this job uses this model'
  },
  {
    what: "an output format no sink has",
    tail: "",
    output: "{ path: out/r.xml, format: xml }",
    says: 'output.format: unknown sink "xml"'
  },
  { what: "a vector store the pipeline cannot feed", tail: "store: { path: out/store.db }\n", says: "store" }
]

describe("the same job refused by plan, check, run --dry-run, run, retry and gc", () => {
  for (const job of refused) {
    it(`${job.what}: exit 2 and the same message from all six`, async () => {
      const { job: file } = moderationJob("refused", 5, job.tail, "out/r.jsonl")
      if (job.output !== undefined) {
        writeFileSync(
          file,
          readFileSync(file, "utf8").replace("output: { path: out/r.jsonl }", `output: ${job.output}`)
        )
      }
      const commands = [
        ["plan", file],
        ["check", file],
        ["run", file, "--dry-run"],
        ["run", file],
        ["retry", file],
        ["gc", file]
      ]
      const results = await Promise.all(
        commands.map(async (args) => {
          const p = spawnCli(args, env)
          return { args, code: await p.exited, lines: refusal(p.err()), out: p.out() }
        })
      )
      for (const r of results) {
        expect(r.code, r.args.join(" ")).toBe(2)
        expect(r.lines, r.args.join(" ")).toHaveLength(1)
        expect(r.lines[0], r.args.join(" ")).toContain(job.says)
      }
      expect(new Set(results.map((r) => r.lines[0])).size).toBe(1)
    }, 60_000)
  }
})
