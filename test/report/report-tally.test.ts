/**
 * The run's report from the tally its output fed (no read of the input of its own) is the report
 * built by reading the input again beside the ledger: inline output and output pass alike.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import { openSource } from "../../src/io/sources/index.ts"
import { Ledger } from "../../src/ledger/ledger.ts"
import { SqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import { buildReport, defaultReportOptions, type ReportOptions } from "../../src/report/build-report.ts"
import { reportTallyOfOutput } from "../../src/report/report-tally.ts"
import { KEY } from "../helpers.ts"
import { runOnce, tempDir, writeCorpus } from "../engine/run-helpers.ts"

const options: ReportOptions = { ...defaultReportOptions, textColumns: ["text"], breakdown: "id" }

describe("the report tallied by the output", () => {
  for (const outputFormat of ["jsonl", "csv"] as const) {
    it.scopedLive(
      `equals the report read from the input again (${outputFormat} output: ${outputFormat === "jsonl" ? "inline" : "the output pass"})`,
      () =>
        Effect.gen(function* () {
          const emulator = yield* Emulator.make({ apiKey: KEY })
          const dir = tempDir()
          const input = writeCorpus(dir, 300)
          const tally = reportTallyOfOutput(options)
          const run = yield* runOnce({ dir, input, emulator, outputFormat, overrides: { tallies: [tally.tally] } })
          expect(run.summary.status).toBe("finished")
          const fed = tally.committed()
          expect(fed).toBeDefined()
          const [fromTally, fromInput] = yield* Effect.gen(function* () {
            const saved = Option.getOrThrow(yield* (yield* Ledger).run(run.summary.runId))
            return [
              yield* buildReport(saved, options, fed),
              yield* buildReport(saved, options, openSource(input, "jsonl"))
            ] as const
          }).pipe(Effect.provide(SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))
          expect(fromTally.moderation?.harmful).toBe(60)
          expect(fromTally.moderation?.breakdown?.rows).toHaveLength(300)
          expect(fromTally).toEqual(fromInput)
        })
    )
  }
})
