/** One mapping from how a command ended to its exit code: outcomes, and the codes errors carry. */
import { describe, expect, it } from "@effect/vitest"
import { Data, Either } from "effect"
import { exitCodeFor, exitCodeOfError } from "../../src/cli/exit-codes.ts"
import { Outcome } from "../../src/cli/outcome.ts"
import { ExitCode } from "../../src/exit-code.ts"
import { LedgerError } from "../../src/ledger/ledger.ts"
import { SinkError } from "../../src/io/sink.ts"

describe("exit codes", () => {
  it("an outcome decides the code of a command that did not fail", () => {
    expect(exitCodeFor(Either.right(Outcome.Finished({ rejects: false })))).toBe(0)
    expect(exitCodeFor(Either.right(Outcome.Finished({ rejects: true })))).toBe(1)
    expect(exitCodeFor(Either.right(Outcome.Aborted()))).toBe(3)
    expect(exitCodeFor(Either.right(Outcome.ThresholdsExceeded()))).toBe(4)
    expect(exitCodeFor(Either.right(Outcome.CheckFailed()))).toBe(5)
    expect(exitCodeFor(Either.right(Outcome.BudgetSpent()))).toBe(6)
    expect(exitCodeFor(Either.right(Outcome.Interrupted()))).toBe(130)
  })

  it("an error's code is its own, whatever its class is called", () => {
    class Renamed extends Data.TaggedError("NotAnyKnownName")<{}> {
      get exitCode() {
        return ExitCode.busy
      }
    }
    expect(exitCodeOfError(new Renamed())).toBe(7)
    expect(exitCodeFor(Either.left(new SinkError({ path: "out.csv", detail: "ENOSPC" })))).toBe(9)
    // A tag alone names no code: only the class declares one.
    expect(exitCodeOfError({ _tag: "ConfigError", message: "x" })).toBe(1)
  })

  it("a ledger the disk failed is 9 (output not written), a ledger that is wrong is 2; both keep their cause", () => {
    const cause = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" })
    const full = new LedgerError({ path: "l.sqlite", detail: "gc failed", io: true, cause })
    expect(exitCodeOfError(full)).toBe(9)
    expect(full.cause).toBe(cause)
    expect(exitCodeOfError(new LedgerError({ path: "l.sqlite", detail: "file is not a database" }))).toBe(2)
  })
})
