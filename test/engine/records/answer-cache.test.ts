/**
 * The answer cache on a warm rerun: answers a record only refers to (a vector placed, unread, in
 * the last stage's vector column) are tested for presence, not read; every other answer is read.
 * The output is the same either way.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Emulator } from "../../../src/emulator/emulator.ts"
import { embed, embeddingChunks, type LongPolicy } from "../../../src/stages/embed.ts"
import type { Stage } from "../../../src/pipeline/stage.ts"
import { lengthStage } from "../fake-stages.ts"
import { KEY, requestLog } from "../../helpers.ts"
import { countingLedger, pipelineOf, readJsonl, runOnce, tempDir, writeRecords } from "../run-helpers.ts"

const LIMIT = 1000
const long = Array.from(
  { length: 400 },
  (_, i) => `Paragraph ${i} describes river ${i % 17} and the bridge at mile ${i * 3}.`
).join(" ")
const chunks = embeddingChunks(long, LIMIT).length
const records = [
  { id: "a", body: "A short note about rivers." },
  { id: "b", body: "Another note, about bridges." },
  { id: "long", body: long }
]

/** A cold run, then a warm rerun through a counting ledger: its lookups and both outputs. */
const coldThenWarm = (stages: ReadonlyArray<Stage>) => {
  const log = requestLog()
  return Effect.gen(function* () {
    const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
    const dir = tempDir()
    const input = writeRecords(dir, records)
    const pipeline = pipelineOf(...stages)
    const cold = yield* runOnce({ dir, input, emulator, pipeline })
    const sent = log.entries.length
    const counting = countingLedger()
    const warm = yield* runOnce({ dir, input, emulator, pipeline, wrapLedger: counting.wrap })
    expect([cold.summary.status, warm.summary.status]).toEqual(["finished", "finished"])
    expect(log.entries).toHaveLength(sent)
    return { calls: counting.calls, cold: readJsonl(cold.output), warm: readJsonl(warm.output) }
  })
}

describe("answer cache", () => {
  for (const [policy, looked, read] of [
    // One chunk: the vector is the answer, referred to. Several, `mean`: the chunks' vectors are read.
    ["mean", 2, chunks],
    ["truncate", 3, 0],
    ["chunks", 2 + chunks, 0]
  ] as const)
    it.scopedLive(`a warm rerun (long: ${policy}) tests the vectors it only refers to, reads the rest`, () =>
      Effect.gen(function* () {
        expect(chunks).toBeGreaterThan(2)
        const { calls, cold, warm } = yield* coldThenWarm([
          embed({ field: "body", long: policy as LongPolicy, maxTokensPerCall: LIMIT })
        ])
        expect([calls.keysLookedUp, calls.keysRead]).toEqual([looked, read])
        expect(warm).toEqual(cold)
      })
    )

  it.scopedLive("an embedding a later stage reads is read, not only tested", () =>
    Effect.gen(function* () {
      const { calls, cold, warm } = yield* coldThenWarm([
        embed({ field: "body", long: "truncate", maxTokensPerCall: LIMIT }),
        lengthStage("after", "embedding")
      ])
      expect(calls.keysLookedUp).toBe(0)
      // Each record's vector, read ahead (the later stage's answers are asked one by one).
      expect(calls.keysRead).toBe(records.length)
      expect(warm.map((r) => r.after_len)).toEqual(cold.map((r) => r.after_len))
      expect(warm).toEqual(cold)
    })
  )
})
