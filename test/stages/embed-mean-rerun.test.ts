/**
 * `long: mean` gives a chunked record the same vector however its chunks' answers arrive: as the
 * service sent them (a fresh run) or as the ledger keeps them (Float32, a rerun). Otherwise a
 * rerun's output and the store (kept as is: the record did not change) disagree (issue 25).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import { embed, embeddingChunks } from "../../src/stages/embed.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { KEY } from "../helpers.ts"
import { storedVector } from "../store/stored-vector.ts"
import { pipelineOf, readJsonl, runOnce, tempDir, writeRecords } from "../engine/run-helpers.ts"

const LIMIT = 1000
const long = Array.from(
  { length: 400 },
  (_, i) => `Paragraph ${i} describes river ${i % 17} and the bridge at mile ${i * 3}.`
).join(" ")

describe("embed, long: mean", () => {
  it.scopedLive(
    "a fresh run and a rerun from the ledger give a chunked record bit-identical vectors, in the output and the store",
    () =>
      Effect.gen(function* () {
        expect(embeddingChunks(long, LIMIT).length).toBeGreaterThan(3)
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        const input = writeRecords(dir, [
          { id: "short", body: "A short note about rivers." },
          { id: "long", body: long }
        ])
        const store = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "vectors.sqlite"), text: "body" })
        const pipeline = pipelineOf(embed({ field: "body", long: "mean", maxTokensPerCall: LIMIT }))
        const runs = []
        // The second run is answered by the ledger: nothing sent, the store left as it was.
        for (let i = 0; i < 2; i++) {
          const run = yield* runOnce({ dir, input, emulator, pipeline, overrides: { store } })
          expect(run.summary.status).toBe("finished")
          if (i === 1)
            expect([run.counters.requests, run.summary.store]).toEqual([0, { written: 0, unchanged: 2, deleted: 0 }])
          runs.push(readJsonl(run.output).find((r) => r.id === "long")!.embedding as Array<number>)
        }
        const [fresh, rerun] = runs
        expect(fresh).toHaveLength(1536)
        expect(rerun).toEqual(fresh)
        for (let d = 0; d < fresh!.length; d++) expect(Object.is(rerun![d], fresh![d])).toBe(true)
        // What the store keeps (Float32) is the output's vector exactly: it is Float32 already.
        expect(storedVector(store.path, "long")).toEqual(fresh)
      })
  )
})
