/**
 * The output pass over many chunks of the source and pages of outcomes: plain rows written a chunk
 * at a time, rejects (unreadable, failed) between them, every row in exactly one file and in input
 * order; a warm rerun (every record done without a worker) writes the very same files.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../../src/emulator/emulator.ts"
import { SqliteLedger } from "../../../src/ledger/sqlite-ledger.ts"
import { writeOutputs } from "../../../src/engine/output/output-pass.ts"
import { openSource } from "../../../src/io/sources/index.ts"
import { KEY, requestLog } from "../../helpers.ts"
import { moderationPipeline, readJsonl, runOnce, tempDir } from "../run-helpers.ts"

const N = 5000

/** Every 97th line is not JSON; every 89th record's text is an object (it fails, unsent). */
const writeMixedCorpus = (dir: string) => {
  const lines: Array<string> = []
  for (let i = 0; i < N; i++) {
    if (i % 97 === 50) lines.push(`{"id": "r${i}", broken`)
    else if (i % 89 === 7) lines.push(JSON.stringify({ id: `r${i}`, text: { nested: i } }))
    else
      lines.push(
        JSON.stringify({
          id: `r${i}`,
          text: i % 5 === 0 ? `Record ${i}: how to build a bomb.` : `Record ${i}: a calm note on ferns.`
        })
      )
  }
  const path = join(dir, "in.jsonl")
  writeFileSync(path, `${lines.join("\n")}\n`)
  return path
}

describe("output pass", () => {
  it.scopedLive(
    "every row in exactly one file, in input order, across chunks and pages; a warm rerun writes the same files",
    () => {
      const log = requestLog()
      return Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
        const dir = tempDir()
        const input = writeMixedCorpus(dir)
        const cold = yield* runOnce({ dir, input, emulator })
        expect(cold.summary.status).toBe("finished")
        const out = readJsonl(cold.output)
        const rejects = readJsonl(cold.rejects)
        const unreadable = rejects.filter((r) => r.status === "unreadable")
        const failed = rejects.filter((r) => r.status !== "unreadable")
        expect(unreadable.map((r) => r.line)).toEqual(
          Array.from({ length: N }, (_, i) => i)
            .filter((i) => i % 97 === 50)
            .map((i) => i + 1)
        )
        expect(failed.map((r) => r.key)).toEqual(
          Array.from({ length: N }, (_, i) => i)
            .filter((i) => i % 97 !== 50 && i % 89 === 7)
            .map((i) => `r${i}`)
        )
        expect(out.length + rejects.length).toBe(N)
        const ids = out.map((r) => Number(String(r.id).slice(1)))
        expect(ids).toEqual(Array.from({ length: N }, (_, i) => i).filter((i) => i % 97 !== 50 && i % 89 !== 7))
        for (const r of out)
          expect(r.moderation_verdict).toBe(Number(String(r.id).slice(1)) % 5 === 0 ? "harmful" : "safe")

        const coldOutput = readFileSync(cold.output, "utf8")
        const coldRejects = readFileSync(cold.rejects, "utf8")
        // The run wrote its JSONL output as it went; the output pass, over the same outcomes, writes the same files.
        const passOutput = join(dir, "pass.jsonl")
        const passRejects = join(dir, "pass.rejects.jsonl")
        yield* writeOutputs(
          {
            job: "t",
            source: openSource(input, "jsonl"),
            output: { path: passOutput, format: "jsonl" },
            rejectsPath: passRejects,
            pipeline: moderationPipeline()
          },
          cold.summary.runId
        ).pipe(Effect.provide(SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))
        expect(readFileSync(passOutput, "utf8")).toBe(coldOutput)
        expect(readFileSync(passRejects, "utf8")).toBe(coldRejects)
        const sent = log.entries.length
        const warm = yield* runOnce({ dir, input, emulator })
        expect(warm.summary).toMatchObject({ status: "finished", done: out.length, failed: failed.length })
        expect(log.entries.length).toBe(sent)
        expect(warm.counters.cacheHits).toBe(out.length)
        expect(readFileSync(warm.output, "utf8")).toBe(coldOutput)
        expect(readFileSync(warm.rejects, "utf8")).toBe(coldRejects)
      })
    },
    60_000
  )
})
