import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { inlineOutputFits, makeInlineOutput } from "../../../src/engine/output/inline-output.ts"
import type { OutputWriter } from "../../../src/engine/output/output-writer.ts"
import { SinkError } from "../../../src/io/sink.ts"
import type { SourceItem } from "../../../src/io/source.ts"
import type { StoredRecord } from "../../../src/ledger/ledger.ts"

const record = (ordinal: number): SourceItem => ({
  _tag: "Record",
  ordinal,
  line: ordinal + 1,
  fields: { id: `r${ordinal}` }
})
const reject = (ordinal: number): SourceItem => ({
  _tag: "Reject",
  ordinal,
  line: ordinal + 1,
  reason: "not JSON",
  raw: "{oops"
})
const done = (ordinal: number): StoredRecord => ({
  key: `r${ordinal}`,
  outcome: { _tag: "Done", output: { rows: [{ verdict: "safe" }], keys: [] } }
})

/** A writer that keeps what it is given: the ordinals written, each write's size, and the outcomes' keys. */
const recordingWriter = (failAt?: number) => {
  const ordinals: Array<number> = []
  const keys: Array<string | undefined> = []
  const writes: Array<number> = []
  const writer: OutputWriter = {
    write: (items, outcomes) =>
      Effect.suspend(() => {
        if (failAt !== undefined && items.some((i) => i.ordinal === failAt))
          return Effect.fail(new SinkError({ path: "out.jsonl", detail: "disk full" }))
        writes.push(items.length)
        for (const i of items) ordinals.push(i.ordinal)
        for (const o of outcomes) keys.push(o?.key)
        return Effect.void
      }),
    commit: Effect.succeed({ notProcessed: 0, duplicateRejects: 0 })
  }
  return { writer, ordinals, keys, writes }
}

/** A scope that says whether it was closed (the inline output's files removed). */
const watchedScope = Effect.gen(function* () {
  const scope = yield* Scope.make()
  const state = { closed: false }
  yield* Scope.addFinalizer(
    scope,
    Effect.sync(() => void (state.closed = true))
  )
  return { scope, state }
})

describe("inline output", () => {
  it.effect("records settled out of order are written in input order, read rejects in their place", () =>
    Effect.gen(function* () {
      const w = recordingWriter()
      const { scope, state } = yield* watchedScope
      const inline = makeInlineOutput(w.writer, scope, { batch: 1 })
      for (const item of [record(0), reject(1), record(2), record(3), reject(4), record(5)]) inline.read(item)
      yield* inline.settle(3, done(3))
      yield* inline.settle(5, done(5))
      expect(w.ordinals).toEqual([]) // record 0 holds the line
      yield* inline.settle(0, done(0))
      expect(w.ordinals).toEqual([0, 1]) // record 2 holds the rest
      yield* inline.settleAll([{ ordinal: 2, ...done(2) }])
      expect(w.ordinals).toEqual([0, 1, 2, 3, 4, 5])
      expect(w.keys).toEqual(["r0", "r2", "r3", "r5"])
      expect(w.writes).toEqual([2, 4]) // what was waiting goes in one write
      const writer = yield* inline.finish
      expect(writer).toBe(w.writer)
      expect(state.closed).toBe(false)
    })
  )

  it.effect("writes a batch of settled items at a time; what is left at the end, at finish", () =>
    Effect.gen(function* () {
      const w = recordingWriter()
      const { scope } = yield* watchedScope
      const inline = makeInlineOutput(w.writer, scope, { batch: 4 })
      for (let i = 0; i < 10; i++) inline.read(record(i))
      for (let i = 1; i < 6; i++) yield* inline.settle(i, done(i))
      expect(w.writes).toEqual([]) // five settled, but record 0 holds them
      yield* inline.settle(0, done(0))
      expect(w.writes).toEqual([6])
      for (let i = 6; i < 9; i++) yield* inline.settle(i, done(i))
      expect(w.writes).toEqual([6]) // three: less than a batch
      yield* inline.settle(9, done(9))
      expect(w.writes).toEqual([6, 4])
      expect(yield* inline.finish).toBe(w.writer)
      expect(w.ordinals).toEqual(Array.from({ length: 10 }, (_, i) => i))
    })
  )

  it.effect("the last items, fewer than a batch, are written at finish", () =>
    Effect.gen(function* () {
      const w = recordingWriter()
      const { scope } = yield* watchedScope
      const inline = makeInlineOutput(w.writer, scope)
      inline.read(record(0))
      inline.read(reject(1))
      yield* inline.settle(0, done(0))
      expect(w.writes).toEqual([])
      expect(yield* inline.finish).toBe(w.writer)
      expect(w.ordinals).toEqual([0, 1])
    })
  )

  it.effect(
    "gives up when too many records wait behind an unfinished one: nothing more is written, its files are removed",
    () =>
      Effect.gen(function* () {
        const w = recordingWriter()
        const { scope, state } = yield* watchedScope
        const inline = makeInlineOutput(w.writer, scope, { maxWaiting: 4 })
        for (let i = 0; i < 4; i++) inline.read(record(i))
        expect(inline.active()).toBe(true)
        inline.read(record(4))
        expect(inline.active()).toBe(false)
        expect(inline.reason()).toContain("more than 4 records")
        for (let i = 0; i < 5; i++) yield* inline.settle(i, done(i))
        expect(w.ordinals).toEqual([])
        expect(yield* inline.finish).toBeUndefined()
        expect(state.closed).toBe(true)
      })
  )

  it.effect("gives up past the byte bound too", () =>
    Effect.gen(function* () {
      const w = recordingWriter()
      const { scope } = yield* watchedScope
      const inline = makeInlineOutput(w.writer, scope, { maxBytes: 200 })
      inline.read(record(0))
      expect(inline.active()).toBe(true)
      inline.read({ _tag: "Record", ordinal: 1, line: 2, fields: { text: "x".repeat(200) } })
      expect(inline.active()).toBe(false)
      expect(inline.reason()).toContain("MiB")
    })
  )

  it.effect("a record read without an outcome at the end: no inline output, its files removed", () =>
    Effect.gen(function* () {
      const w = recordingWriter()
      const { scope, state } = yield* watchedScope
      const inline = makeInlineOutput(w.writer, scope)
      inline.read(record(0))
      inline.read(record(1))
      yield* inline.settle(0, done(0))
      expect(yield* inline.finish).toBeUndefined()
      expect(inline.reason()).toBe("a record read has no outcome")
      expect(state.closed).toBe(true)
    })
  )

  it.effect("a failed write gives up without failing the record that settled", () =>
    Effect.gen(function* () {
      const w = recordingWriter(1)
      const { scope, state } = yield* watchedScope
      const inline = makeInlineOutput(w.writer, scope, { batch: 1 })
      for (let i = 0; i < 3; i++) inline.read(record(i))
      yield* inline.settle(0, done(0))
      const exit = yield* Effect.exit(inline.settle(1, done(1)))
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(inline.reason()).toContain("disk full")
      yield* inline.settle(2, done(2))
      expect(w.ordinals).toEqual([0])
      expect(yield* inline.finish).toBeUndefined()
      expect(state.closed).toBe(true)
    })
  )
})

describe("whether the output is written inline", () => {
  it("follows what the sink declares it needs of the input; the output pass when asked for", () => {
    const fits = (format: string, declared: ReadonlyArray<string> | undefined, knownTypes: boolean, pass = false) =>
      inlineOutputFits(
        { output: { path: "out", format }, inlineOutput: pass ? false : undefined },
        declared,
        knownTypes
      )
    expect([
      fits("jsonl", undefined, false),
      fits("csv", undefined, false),
      fits("csv", ["a"], false),
      fits("parquet", ["a"], false),
      fits("parquet", ["a"], true)
    ]).toEqual([true, false, true, false, true])
    expect(fits("jsonl", ["a"], true, true)).toBe(false)
    expect(fits("no-such-sink", ["a"], true)).toBe(false)
  })
})
