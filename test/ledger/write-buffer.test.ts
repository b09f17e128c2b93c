/** The ledger's write-behind buffer: batches, commits at most maxLagMs late while writes go on, and at the end of the turn otherwise. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { makeSqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import { makeWriteBuffer } from "../../src/ledger/write-buffer.ts"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const busy = (ms: number) => {
  const end = performance.now() + ms
  while (performance.now() < end) {
    // a busy event loop: parsing responses, hashing, …
  }
}
const nextTurn = () => new Promise<void>((r) => setImmediate(r))

describe("write buffer", () => {
  it("a busy turn: while writes go on, each is committed at most maxLagMs after it was made", () => {
    let t = 0
    const committedAt = new Map<number, number>()
    const buffer = makeWriteBuffer<number>({
      maxOps: 10_000,
      maxLagMs: 5,
      now: () => t,
      commit: (ops) => ops.forEach((op) => committedAt.set(op, t))
    })
    // 60 writes in one turn, 1 ms of work after each: the turn lasts 60 ms.
    for (let i = 0; i < 60; i++) {
      buffer.add(i)
      t += 1
    }
    buffer.flush()
    const lags = [...committedAt].map(([op, at]) => at - op)
    expect(lags.length).toBe(60)
    expect(Math.max(...lags)).toBe(5)
    expect(buffer.lag()).toEqual({ commits: 10, maxMs: 5, p99Ms: 5 }) // batches of 6, not one per write
  })

  it("writes that stop coming are committed when the turn ends, without waiting for a timer", async () => {
    const commits: Array<ReadonlyArray<number>> = []
    const buffer = makeWriteBuffer<number>({ maxOps: 100, maxLagMs: 1_000, commit: (ops) => void commits.push(ops) })
    buffer.add(1)
    buffer.add(2)
    expect(commits).toEqual([])
    await nextTurn()
    expect(commits).toEqual([[1, 2]])
  })

  it("a full batch is committed at once", () => {
    const commits: Array<ReadonlyArray<number>> = []
    const buffer = makeWriteBuffer<number>({ maxOps: 3, maxLagMs: 1_000, commit: (ops) => void commits.push(ops) })
    for (let i = 0; i < 7; i++) buffer.add(i)
    expect(commits).toEqual([
      [0, 1, 2],
      [3, 4, 5]
    ])
    buffer.flush()
    expect(commits).toEqual([[0, 1, 2], [3, 4, 5], [6]])
  })

  it("a failed commit fails the next write and every flush", async () => {
    const buffer = makeWriteBuffer<number>({
      maxOps: 100,
      maxLagMs: 1_000,
      commit: () => {
        throw new Error("disk full")
      }
    })
    buffer.add(1)
    await nextTurn() // the turn-end commit fails; nobody is there to tell
    expect(() => buffer.add(2)).toThrow("disk full")
    expect(() => buffer.flush()).toThrow("disk full")
  })

  it.live(
    "the ledger: a write made maxLagMs after the oldest uncommitted one commits both at once, in the same turn",
    () =>
      Effect.gen(function* () {
        const commits: Array<ReadonlyArray<string>> = []
        const path = join(mkdtempSync(join(tmpdir(), "svc-ledger-")), "ledger.sqlite")
        yield* Effect.scoped(
          Effect.gen(function* () {
            const ledger = yield* makeSqliteLedger({ path, maxLagMs: 2, onCommit: (keys) => void commits.push(keys) })
            yield* ledger.putAnswer({ key: "k0", endpoint: "chat", model: "m", tokens: 1 }, Schema.String, "a0")
            busy(3) // the event loop stays busy: no timer or turn end could commit meanwhile
            yield* ledger.putAnswer({ key: "k1", endpoint: "chat", model: "m", tokens: 1 }, Schema.String, "a1")
            expect(commits).toEqual([["k0", "k1"]])
          })
        )
      })
  )
})
