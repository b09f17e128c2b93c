/**
 * Every vector store reached through the sink port (what a second adapter would pass too): put,
 * keep, commit with cleanup, size and nearest-first search, through `vectorStoreFor`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { join } from "node:path"
import { vectorStoreFor, vectorStores } from "../../src/io/sinks/index.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { tempDir } from "../engine/run-helpers.ts"

const unit = (i: number, dim = 4) => Array.from({ length: dim }, (_, j) => (j === i ? 1 : 0))

describe("vector stores through the sink port", () => {
  it("the job file's store.format names an adapter of the port", () => {
    const format = Schema.decodeUnknownSync(StoreSettings)({ path: "kb.sqlite" }).format
    expect(vectorStoreFor(format)?.name).toBe(format)
  })

  for (const adapter of Object.values(vectorStores)) {
    it(`${adapter.name}: writes records, keeps them in step with the source, and finds the nearest first`, () => {
      const settings = Schema.decodeUnknownSync(StoreSettings)({
        format: adapter.name,
        path: join(tempDir(), "kb.sqlite"),
        text: "text",
        cleanup: "full"
      })
      const row = (i: number) => ({ vector: unit(i), text: `doc ${i}`, metadata: {} })
      const first = adapter.openWriter(settings, 4, { job: "j" })
      for (const i of [0, 1, 2]) first.put(`r${i}`, `h${i}`, () => [row(i)])
      expect(first.commit()).toEqual({ written: 3, unchanged: 0, deleted: 0 })
      first.close()
      expect(adapter.size(settings)).toBe(3)
      // A second pass: r0 unchanged, r1 kept as it is (failed this time), r2 gone from the source.
      const second = adapter.openWriter(settings, 4, { job: "j" })
      second.put("r0", "h0", () => expect.unreachable("an unchanged record is not rewritten"))
      second.keep("r1")
      expect(second.commit()).toEqual({ written: 0, unchanged: 1, deleted: 1 })
      second.close()
      expect(adapter.size(settings)).toBe(2)
      const hits = adapter.search(settings, [0.1, 0.9, 0, 0], 2)
      expect(hits.map((h) => [h.recordKey, h.text])).toEqual([
        ["r1", "doc 1"],
        ["r0", "doc 0"]
      ])
    })
  }
})
