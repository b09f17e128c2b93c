/** The rerank stage: batches of 20, merged ranking, candidates' forms, exclusions named, options checked. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { Emulator } from "../../src/emulator/emulator.ts"
import { readCandidates, rerank, rerankStage } from "../../src/stages/rerank.ts"
import { stageFromEntry } from "../../pipelines/index.ts"
import { KEY, requestLog } from "../helpers.ts"
import { pipelineOf, readJsonl, runOnce, tempDir, writeRecords } from "../engine/run-helpers.ts"

const words = ["river", "bridge", "harbour", "crane", "lighthouse", "ferry", "canal", "dock", "pier"]
const candidates = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Candidate ${i} mentions the ${words[i % words.length]} and the ${words[(i * 5) % words.length]}.`
  )

const writeInput = writeRecords

describe("rerank run", () => {
  it.scopedLive("45 candidates: 3 calls of at most 20, all 45 returned in descending score", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const list = candidates(45)
      const input = writeInput(dir, [{ id: "q1", query: "the ferry at the harbour", docs: list }])
      const run = yield* runOnce({
        dir,
        input,
        emulator,
        pipeline: pipelineOf(rerank({ query: "query", candidates: "docs" }))
      })
      expect(run.summary).toMatchObject({ status: "finished", done: 1, failed: 0 })
      const calls = log.entries.filter((e) => e.path === "/v1/rerank")
      expect(calls).toHaveLength(3)
      const out = readJsonl(run.output)[0]!
      const ranked = out.rerank_ranked as Array<{ index: number; score: number; text: string }>
      expect(ranked).toHaveLength(45)
      expect(new Set(ranked.map((r) => r.index)).size).toBe(45)
      for (const r of ranked) expect(r.text).toBe(list[r.index])
      for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(ranked[i]!.score)
      expect(out.rerank_top).toBe(ranked[0]!.text)
      expect(ranked[0]!.text).toMatch(/ferry|harbour/)
      expect(out.rerank_warnings).toBeNull()
    })
  })

  it.scopedLive("top_n keeps the best N; a candidate too long for a pair is named and left out", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const huge = "lighthouse ".repeat(9000)
      const list = [...candidates(5), huge, ""]
      const input = writeInput(dir, [{ id: "q1", query: "lighthouse", docs: JSON.stringify(list) }])
      const run = yield* runOnce({
        dir,
        input,
        emulator,
        pipeline: pipelineOf(rerank({ query: "query", candidates: "docs", top_n: 3 }))
      })
      const out = readJsonl(run.output)[0]!
      const ranked = out.rerank_ranked as Array<{ index: number }>
      expect(ranked).toHaveLength(3)
      expect(ranked.map((r) => r.index)).not.toContain(5)
      expect(String(out.rerank_warnings)).toMatch(
        /^candidate 5: query plus candidate is \d+ tokens \(over 8000\), not ranked; candidate 6: empty, not ranked$/
      )
      expect(run.counters.stages).toEqual({ rerank_excluded: 2 })
    })
  )
})

describe("rerank candidates", () => {
  it("reads an array, a JSON-array string, or a string split on the separator", () => {
    expect(readCandidates(["a", "b"], undefined)).toEqual(["a", "b"])
    expect(readCandidates('["a","b"]', undefined)).toEqual(["a", "b"])
    expect(readCandidates("a|b||c", "|")).toEqual(["a", "b", "c"])
    expect(readCandidates("a|b", undefined)).toBe("expected a JSON array of strings (or set separator)")
  })
})

describe("rerank options", () => {
  it("refuses CUSTOMIZE without query_instruction when the job is loaded", () => {
    const r = stageFromEntry(rerankStage, { query: "q", candidates: "c", task_type: "CUSTOMIZE" }, "job.yaml", 2)
    expect(Either.isLeft(r) && r.left.message).toBe(
      "job.yaml: stages.2.rerank.query_instruction: required when task_type is CUSTOMIZE (the service refuses CUSTOMIZE without it)"
    )
    expect(
      Either.isRight(
        stageFromEntry(
          rerankStage,
          { query: "q", candidates: "c", task_type: "CUSTOMIZE", query_instruction: "FAQ search" },
          "job.yaml",
          2
        )
      )
    ).toBe(true)
  })
})
