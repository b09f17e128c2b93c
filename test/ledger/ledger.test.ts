/** The ledger: migrations, batched writes through one writer, flush, resume queries. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import Database from "better-sqlite3"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeLedger } from "../../src/ledger/ledger.ts"

const tempDb = () => join(mkdtempSync(join(tmpdir(), "svc-ledger-")), "ledger.sqlite")

describe("ledger", () => {
  it.scopedLive("commits queued writes in batches through one writer, and flush waits for them", () =>
    Effect.gen(function* () {
      const commits: Array<number> = []
      const path = tempDb()
      const ledger = yield* makeLedger({ path, batchSize: 500, onCommit: (keys) => void commits.push(keys.length) })
      const run = ledger.startRun("job", "fp")
      yield* Effect.forEach(
        Array.from({ length: 2000 }, (_, i) => i),
        (i) =>
          Effect.zipRight(
            ledger.write({ _tag: "Answer", key: `k${i}`, endpoint: "chat", model: "m", answer: JSON.stringify(`a${i}`), tokens: 1 }),
            ledger.write({ _tag: "Record", runId: run, ordinal: i, key: `r${i}`, status: i % 10 === 0 ? "failed" : "done", output: "[]", error: null })
          ),
        { discard: true }
      )
      yield* ledger.flush
      // Far fewer transactions than writes (4,000 writes).
      expect(commits.length).toBeLessThan(100)
      expect(commits.reduce((a, b) => a + b, 0)).toBe(2000)
      expect(ledger.counts(run)).toEqual({ done: 1800, failed: 200 })
      expect(ledger.answer("k1999")).toBe('"a1999"')
      expect(ledger.record(run, 10)?.status).toBe("failed")
      // Another connection sees them: they are committed, not just queued.
      const other = new Database(path, { readonly: true })
      expect((other.prepare("SELECT count(*) AS n FROM answers").get() as { n: number }).n).toBe(2000)
      other.close()
    })
  )

  it.scopedLive("serves an answer that is queued but not yet committed", () =>
    Effect.gen(function* () {
      const ledger = yield* makeLedger({ path: tempDb() })
      yield* ledger.write({ _tag: "Answer", key: "x", endpoint: "chat", model: "m", answer: '"v"', tokens: 0 })
      expect(ledger.answer("x")).toBe('"v"')
      expect(ledger.answer("x", Date.now() + 60_000)).toBeUndefined() // refresh: too old for this run
    })
  )

  it.scopedLive("finds the last run of a job and keeps records across reopening (migrations run once)", () => {
    const path = tempDb()
    return Effect.gen(function* () {
      const first = yield* Effect.scoped(
        Effect.gen(function* () {
          const ledger = yield* makeLedger({ path })
          const id = ledger.startRun("nightly", "fp1")
          yield* ledger.write({ _tag: "Record", runId: id, ordinal: 3, key: "k3", status: "done", output: '[{"v":1}]', error: null })
          yield* ledger.flush
          ledger.setRun(id, "interrupted", { done: 1 })
          return id
        })
      )
      const ledger = yield* makeLedger({ path })
      const last = ledger.lastRun("nightly")!
      expect(last.id).toBe(first)
      expect(last.status).toBe("interrupted")
      expect(last.fingerprint).toBe("fp1")
      expect(JSON.parse(last.counters)).toEqual({ done: 1 })
      expect(ledger.record(first, 3)).toEqual({ status: "done", key: "k3", output: '[{"v":1}]', error: null })
      expect(ledger.lastRun("other")).toBeUndefined()
    })
  })
})
