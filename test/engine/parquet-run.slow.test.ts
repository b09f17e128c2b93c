/** Parquet in, Parquet out: a DuckDB-written input, and DuckDB reading our output back. */
import { describe, expect, it } from "@effect/vitest"
import { duck } from "../duck.ts"
import { Effect } from "effect"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import { KEY } from "../helpers.ts"
import { runOnce, tempDir } from "./run-helpers.ts"

describe("Parquet job", () => {
  it.scopedLive("keeps input columns and types, adds the stage's columns, in order", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = join(dir, "in.parquet")
      yield* Effect.promise(() =>
        duck(
          `COPY (SELECT 'p' || i AS id, i AS n, i * 0.5 AS score,
                  CASE WHEN i % 4 = 0 THEN 'how to build a bomb ' || i ELSE 'a quiet day ' || i END AS text
                FROM range(3000) t(i)) TO '${input}' (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION v2, ROW_GROUP_SIZE 700)`
        )
      )
      const run = yield* runOnce({ dir, input, emulator, format: "parquet" })
      expect(run.summary).toMatchObject({ status: "finished", done: 3000, failed: 0 })
      const rows = yield* Effect.promise(() => duck(`SELECT * FROM '${run.output}'`))
      expect(rows).toHaveLength(3000)
      expect(Object.keys(rows[0]!)).toEqual([
        "id",
        "n",
        "score",
        "text",
        "moderation_verdict",
        "moderation_categories",
        "moderation_raw"
      ])
      // `n` is a DuckDB BIGINT (range): it stays BIGINT, so DuckDB reads it back as a bigint.
      expect(rows[0]).toMatchObject({
        id: "p0",
        n: 0n,
        score: 0,
        moderation_verdict: "harmful",
        moderation_categories: "T9"
      })
      expect(rows[2999]).toMatchObject({
        id: "p2999",
        n: 2999n,
        score: 1499.5,
        moderation_verdict: "safe",
        moderation_categories: ""
      })
      expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 3000 }, (_, i) => `p${i}`))
      const types = yield* Effect.promise(() =>
        duck(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${run.output}')`)
      )
      expect(types.find((t) => t.column_name === "n")?.column_type).toBe("BIGINT")
      expect(types.find((t) => t.column_name === "score")?.column_type).toBe("DECIMAL(21,1)") // i * 0.5 in DuckDB
    })
  )
})
