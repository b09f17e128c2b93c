/**
 * A column's values counted as the output is written (a moderation run's verdicts): the same
 * counts as the ledger's GROUP BY over the run, whether the output is written inline or by the
 * output pass; none when nothing was committed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { Emulator } from "../../../src/emulator/emulator.ts"
import { columnCountOfOutput } from "../../../src/engine/output/column-count.ts"
import { makeSqliteLedger } from "../../../src/ledger/sqlite-ledger.ts"
import { KEY } from "../../helpers.ts"
import { runOnce, tempDir, writeCorpus } from "../run-helpers.ts"

const N = 1000
const sorted = (c: ReadonlyArray<{ value: string | null; n: number }>) =>
  [...c].sort((a, b) => String(a.value).localeCompare(String(b.value)))

describe("column count", () => {
  for (const path of ["inline", "output pass"] as const) {
    it.scopedLive(`counts the done records by a column's value as the ledger's GROUP BY does (${path})`, () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        const input = writeCorpus(dir, N)
        const count = columnCountOfOutput("moderation_verdict")
        const run = yield* runOnce({
          dir,
          input,
          emulator,
          overrides: { tallies: [count.tally], ...(path === "output pass" ? { inlineOutput: false } : {}) }
        })
        const ledger = yield* makeSqliteLedger({ path: join(dir, "ledger.sqlite") })
        const byLedger = yield* ledger.countByColumn(run.summary.runId, "moderation_verdict")
        expect(sorted(count.committed() ?? [])).toEqual(sorted(byLedger))
        expect(count.committed()?.find((c) => c.value === "harmful")?.n).toBe(N / 5)
        expect(count.committed()?.reduce((n, c) => n + c.n, 0)).toBe(run.summary.done)
      })
    )
  }

  it("counts nothing until its output is committed", () => {
    const count = columnCountOfOutput("v")
    const t = count.tally()
    t.add({}, { key: "a", outcome: { _tag: "Done", output: { rows: [{ v: "safe" }], keys: [] } } })
    expect(count.committed()).toBeUndefined()
    t.commit()
    expect(count.committed()).toEqual([{ value: "safe", n: 1 }])
  })
})
