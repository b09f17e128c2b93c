/** The write-behind buffer of a ledger whose commits are round trips: group commits, one at a time, a bounded backlog. */
import { describe, expect, it } from "vitest"
import { makeAsyncWriteBuffer } from "../../src/ledger/async-write-buffer.ts"

/** A commit that takes `ms` (a round trip to the server), recording each batch. */
const server = (ms: number) => {
  const batches: Array<ReadonlyArray<number>> = []
  let inFlight = 0
  let mostInFlight = 0
  const commit = async (ops: ReadonlyArray<number>) => {
    inFlight++
    mostInFlight = Math.max(mostInFlight, inFlight)
    await new Promise((r) => setTimeout(r, ms))
    batches.push(ops)
    inFlight--
  }
  return { commit, batches, mostInFlight: () => mostInFlight }
}

describe("async write buffer", () => {
  it("while a commit is in flight, writes gather and go together in the next, one commit at a time, in order", async () => {
    const s = server(20)
    const buffer = makeAsyncWriteBuffer<number>({ commit: s.commit, maxOps: 10_000, maxLagMs: 5 })
    for (let i = 0; i < 1000; i++) {
      buffer.add(i)
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 3))
    }
    await buffer.flush()
    expect(s.batches.flat()).toEqual(Array.from({ length: 1000 }, (_, i) => i))
    // Far fewer commits than writes, and never two at once.
    expect(s.batches.length).toBeLessThan(12)
    expect(s.mostInFlight()).toBe(1)
    expect(buffer.lag().commits).toBe(s.batches.length)
  })

  it("a commit takes at most maxOps operations", async () => {
    const s = server(1)
    const buffer = makeAsyncWriteBuffer<number>({ commit: s.commit, maxOps: 100, maxLagMs: 5, maxBacklog: 10_000 })
    for (let i = 0; i < 450; i++) buffer.add(i)
    await buffer.flush()
    expect(s.batches.map((b) => b.length)).toEqual([100, 100, 100, 100, 50])
  })

  it("a writer waits only when the backlog passes its bound", async () => {
    const s = server(10)
    const buffer = makeAsyncWriteBuffer<number>({ commit: s.commit, maxOps: 10, maxLagMs: 0, maxBacklog: 50 })
    const waits = Array.from({ length: 100 }, (_, i) => buffer.add(i))
    expect(waits.slice(0, 50).every((w) => w === undefined)).toBe(true)
    expect(waits.slice(50).every((w) => w instanceof Promise)).toBe(true)
    await buffer.flush()
    expect(s.batches.flat()).toHaveLength(100)
  })

  it("a failed commit is told to the next add and to flush; nothing after it is committed", async () => {
    let calls = 0
    const buffer = makeAsyncWriteBuffer<number>({
      commit: async () => {
        calls++
        throw new Error("connection lost")
      },
      maxOps: 10,
      maxLagMs: 5
    })
    buffer.add(1)
    await expect(buffer.flush()).rejects.toThrow("connection lost")
    expect(() => buffer.add(2)).toThrow("connection lost")
    await expect(buffer.flush()).rejects.toThrow("connection lost")
    expect(calls).toBe(1)
  })
})
