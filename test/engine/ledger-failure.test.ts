/**
 * A run whose ledger write fails mid-run (the disk full: an `io` LedgerError) fails with that error
 * and is marked interrupted rather than left running, when the ledger can still take its status.
 * The ledger here refuses the run's record writes after the first few; its other writes go through.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { Emulator } from "../../src/emulator/emulator.ts"
import { Ledger, LedgerError, type LedgerService } from "../../src/ledger/ledger.ts"
import { SqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import { KEY } from "../helpers.ts"
import { runOnce, tempDir, writeCorpus } from "./run-helpers.ts"

const full = (path: string) => new LedgerError({ path, detail: "write failed: database or disk is full", io: true })

/** Record writes fail once `allowed` have gone through. */
const fillingLedger =
  (allowed: number) =>
  (l: LedgerService): LedgerService => {
    let writes = 0
    const gate = <A>(effect: Effect.Effect<A, LedgerError>) =>
      Effect.suspend(() => (++writes > allowed ? Effect.fail(full(l.path)) : effect))
    return {
      ...l,
      putRecord: (runId, ordinal, key, outcome) => gate(l.putRecord(runId, ordinal, key, outcome)),
      putRecords: (runId, records) => gate(l.putRecords(runId, records))
    }
  }

describe("a ledger write failing mid-run", () => {
  it.scopedLive("fails the run with the ledger's error and leaves it interrupted", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeCorpus(dir, 300)
      const result = yield* Effect.either(runOnce({ dir, input, emulator, wrapLedger: fillingLedger(20) }))
      const error = Either.flip(result).pipe(Either.getOrThrow)
      expect(error).toMatchObject({ _tag: "LedgerError", io: true })
      const run = yield* Effect.gen(function* () {
        const ledger = yield* Ledger
        return yield* ledger.lastRun("test-job")
      }).pipe(Effect.provide(SqliteLedger.layer({ path: `${dir}/ledger.sqlite` })))
      expect(Option.map(run, (r) => r.status)).toEqual(Option.some("interrupted"))
    })
  )
})
