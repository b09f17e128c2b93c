/** The runner end to end against the emulator: faults, resume, cache modes, abort, outputs. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Emulator } from "../../src/emulator/emulator.ts"
import type { RequestLogEntry } from "../../src/emulator/options.ts"
import { KEY, requestLog } from "../helpers.ts"
import { column, ColumnType } from "../../src/pipeline/columns.ts"
import { makeRequest, prepared, type Stage } from "../../src/pipeline/stage.ts"
import { openSource } from "../../src/io/sources/index.ts"
import { writeOutputs } from "../../src/engine/output/output-pass.ts"
import { SqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import {
  countingLedger,
  markRun,
  moderationPipeline,
  pipelineOf,
  readJsonl,
  runOnce,
  tempDir,
  writeCorpus
} from "./run-helpers.ts"

/** Asks a chat model the service does not have: every request gets a 400. */
const unknownModelStage: Stage = {
  name: "moderate",
  reads: ["text"],
  calls: [],
  columns: [column("verdict", ColumnType.string)],
  prepare: (fields) =>
    prepared(
      [
        makeRequest({
          endpoint: "chat",
          model: "svc9-nope",
          params: {},
          text: String(fields.text),
          answer: Schema.String,
          send: (svc) =>
            svc
              .chat({ model: "svc9-nope", messages: [{ role: "user", content: String(fields.text) }] })
              .pipe(Effect.map(() => ({ value: "", tokens: 0 })))
        })
      ],
      () => [{ verdict: "never" }]
    )
}

const verdictOf = (i: number) => (i % 5 === 0 ? "harmful" : "safe")

describe("runner", () => {
  it.scopedLive(
    "every record ends done or failed-with-reason under 429s, 500s, 503s, resets, cut streams and slow answers",
    () => {
      const log = requestLog()
      return Effect.gen(function* () {
        const emulator = yield* Emulator.make({
          apiKey: KEY,
          rpm: { "svc3-guard": 6000 },
          burst: 2,
          latencyMs: 5,
          jitterMs: 5,
          error500Rate: 0.08,
          error503Rate: 0.03,
          resetRate: 0.04,
          cutStreamRate: 0.08,
          slowRate: 0.02,
          slowMs: 2500,
          faultSeed: 9,
          onRequest: log.onRequest
        })
        const dir = tempDir()
        const input = writeCorpus(dir, 300)
        const { summary, counters, output, rejects } = yield* runOnce({
          dir,
          input,
          emulator,
          pipeline: moderationPipeline({ stream: true }),
          timeout: "1 second",
          // The client paces at the service's rate; jitter still bunches arrivals into a few 429s.
          overrides: { rpm: { "svc3-guard": 6000 } }
        })
        expect(summary.status).toBe("finished")
        const out = readJsonl(output)
        const rej = readJsonl(rejects)
        // Nothing lost: every input record is in the output or the rejects, exactly once.
        const ids = [...out.map((r) => r.id), ...rej.map((r) => r.key)].sort()
        expect(ids).toEqual(Array.from({ length: 300 }, (_, i) => `r${i}`).sort())
        expect(out.length + rej.length).toBe(300)
        for (const r of rej) expect(String(r.reason).length).toBeGreaterThan(0)
        // Output keeps input order and carries the right verdicts.
        const order = out.map((r) => Number(String(r.id).slice(1)))
        expect(order).toEqual([...order].sort((a, b) => a - b))
        for (const r of out) expect(r.moderation_verdict).toBe(verdictOf(Number(String(r.id).slice(1))))
        // The faults really happened and were retried.
        const faults = new Set(log.entries.map((e) => e.fault).filter((f) => f !== undefined))
        for (const f of ["500", "503", "reset", "cut", "slow"]) expect(faults.has(f as never), f).toBe(true)
        expect(log.entries.some((e) => e.status === 429)).toBe(true)
        expect(counters.retries).toBeGreaterThan(10)
        expect(counters.rateLimited).toBeGreaterThan(0)
        expect(summary.done + summary.failed).toBe(300)
      })
      // ~30 s alone (slow answers, backoffs, a 6,000/min pace); over 55 s on a loaded 2-core machine.
    },
    120_000
  )

  it.scopedLive("a warm rerun sends no request; refresh asks again; off stores nothing", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const input = writeCorpus(dir, 120)
      const first = yield* runOnce({ dir, input, emulator })
      expect(first.summary.status).toBe("finished")
      expect(first.counters.requests).toBe(120)
      const warm = yield* runOnce({ dir, input, emulator })
      expect(warm.summary.resumed).toBe(false) // a finished run is not resumed: a new run, all cache hits
      expect(warm.counters.requests).toBe(0)
      expect(warm.counters.cacheHits).toBe(120)
      expect(readFileSync(warm.output, "utf8")).toBe(readFileSync(first.output, "utf8"))
      const refresh = yield* runOnce({ dir, input, emulator, overrides: { cache: "refresh" } })
      expect(refresh.counters.requests).toBe(120)
      const offDir = tempDir()
      const off1 = yield* runOnce({ dir: offDir, input, emulator, overrides: { cache: "off" } })
      const off2 = yield* runOnce({ dir: offDir, input, emulator, overrides: { cache: "off" } })
      expect(off1.counters.requests + off2.counters.requests).toBe(240)
      expect(log.entries).toHaveLength(120 * 4)
    })
  })

  it.scopedLive("the same text in many records is asked once", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, latencyMs: 20, onRequest: log.onRequest })
      const dir = tempDir()
      const input = join(dir, "dup.jsonl")
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(
        input,
        Array.from({ length: 200 }, (_, i) => JSON.stringify({ id: `d${i}`, text: `same text ${i % 4}` })).join("\n")
      )
      const run = yield* runOnce({ dir, input, emulator })
      expect(run.summary.done).toBe(200)
      expect(log.entries).toHaveLength(4)
      expect(run.counters.cacheHits).toBe(196)
    })
  })

  it.scopedLive("a stop ends reading, lets records in flight finish, and a rerun resumes without asking again", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const stop = yield* Deferred.make<void>()
      // The stop follows the run's progress (150 answers), not a timer a loaded machine could outrun.
      const onRequest = (e: RequestLogEntry) => {
        log.onRequest(e)
        if (log.entries.length === 150) Deferred.unsafeDone(stop, Exit.void)
      }
      const emulator = yield* Emulator.make({ apiKey: KEY, latencyMs: 30, onRequest })
      const dir = tempDir()
      const input = writeCorpus(dir, 400)
      const first = yield* runOnce({
        dir,
        input,
        emulator,
        overrides: { stop: Deferred.await(stop), recordConcurrency: 16 }
      })
      expect(first.summary.status).toBe("interrupted")
      expect(first.summary.done).toBeGreaterThan(0)
      expect(first.summary.done).toBeLessThan(400)
      const sentBefore = log.entries.length
      expect(sentBefore).toBe(first.summary.done) // records in flight finished and were recorded
      const second = yield* runOnce({ dir, input, emulator })
      expect(second.summary.resumed).toBe(true)
      expect(second.summary.status).toBe("finished")
      expect(second.counters.skipped).toBe(first.summary.done)
      // No text was asked twice across the two invocations.
      expect(new Set(log.entries.map((e) => e.bodyHash)).size).toBe(log.entries.length)
      expect(log.entries).toHaveLength(400)
      const out = readJsonl(second.output)
      expect(out.map((r) => r.id)).toEqual(Array.from({ length: 400 }, (_, i) => `r${i}`))
    })
  })

  it.scopedLive(
    "a warm rerun reads answers a window at a time, and a resumed run reads its done set once: no lookup per record",
    () => {
      const log = requestLog()
      return Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, latencyMs: 30, onRequest: log.onRequest })
        const dir = tempDir()
        const input = writeCorpus(dir, 2000)
        const stop = yield* Deferred.make<void>()
        yield* Effect.forkScoped(
          Effect.sleep(Duration.millis(400)).pipe(Effect.zipRight(Deferred.succeed(stop, undefined)))
        )
        const first = yield* runOnce({
          dir,
          input,
          emulator,
          overrides: { stop: Deferred.await(stop), recordConcurrency: 16 }
        })
        expect(first.summary.status).toBe("interrupted")
        const resumedLedger = countingLedger()
        const second = yield* runOnce({ dir, input, emulator, wrapLedger: resumedLedger.wrap })
        expect(second.summary).toMatchObject({ resumed: true, status: "finished" })
        expect(second.counters.skipped).toBe(first.summary.done)
        expect(resumedLedger.calls.record).toBe(0)
        expect(log.entries).toHaveLength(2000)

        // Every answer stored: a new run over the same input reads them in bulk, 512 records a query.
        const warmLedger = countingLedger()
        const warm = yield* runOnce({ dir, input, emulator, wrapLedger: warmLedger.wrap })
        expect(warm.summary).toMatchObject({ resumed: false, status: "finished", done: 2000 })
        expect(warm.counters.cacheHits).toBe(2000)
        expect(log.entries).toHaveLength(2000)
        expect(warmLedger.calls.answer).toBe(0)
        expect(warmLedger.calls.answersFor).toBe(4)
        const out = readJsonl(warm.output)
        expect(out.map((r) => r.id)).toEqual(Array.from({ length: 2000 }, (_, i) => `r${i}`))
        expect(out.map((r) => r.moderation_verdict)).toEqual(Array.from({ length: 2000 }, (_, i) => verdictOf(i)))
      })
    }
  )

  it.scopedLive("401 aborts the run at once; 400s fail only their records, with the service's message", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeCorpus(dir, 50)
      const aborted = yield* runOnce({ dir, input, emulator, apiKey: "wrong" })
      expect(aborted.summary.status).toBe("aborted")
      expect(aborted.summary.abortReason).toContain("401")

      // An unknown model: the service answers 400 and the records fail with its message.
      const badDir = tempDir()
      const bad = yield* runOnce({ dir: badDir, input, emulator, pipeline: pipelineOf(unknownModelStage) })
      expect(bad.summary.status).toBe("finished")
      expect(bad.summary.failed).toBe(50)
      const rejects = readJsonl(bad.rejects)
      expect(rejects).toHaveLength(50)
      expect(rejects[0]).toMatchObject({ stage: "moderate", status: "BadRequestError", attempts: 1 })
      expect(String(rejects[0]!.reason)).toContain("not a chat model")
    })
  )

  it.scopedLive(
    "JSONL out is written as the run goes: the input is read once, and the files are those the output pass writes",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, latencyMs: 5, jitterMs: 5 })
        const dir = tempDir()
        const input = writeCorpus(dir, 600)
        // Unreadable lines and harmful records among them: every kind of item in its place.
        const lines = readFileSync(input, "utf8").split("\n")
        lines.splice(100, 0, "{not json")
        lines.splice(400, 0, "[1, 2")
        writeFileSync(input, lines.join("\n"))
        const plain = openSource(input, "jsonl")
        let reads = 0
        const source = { ...plain, items: () => (reads++, plain.items()) }
        const run = yield* runOnce({ dir, input, emulator, overrides: { source } })
        expect(run.summary).toMatchObject({ status: "finished", done: 600, readRejects: 2 })
        expect(reads).toBe(1)
        // The output pass over the same run's outcomes writes the very same files.
        const outputPath = join(dir, "pass.jsonl")
        const rejectsPath = join(dir, "pass.rejects.jsonl")
        yield* writeOutputs(
          {
            job: "t",
            source: openSource(input, "jsonl"),
            output: { path: outputPath, format: "jsonl" },
            rejectsPath,
            pipeline: moderationPipeline()
          },
          run.summary.runId
        ).pipe(Effect.provide(SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))
        expect(readFileSync(run.output, "utf8")).toBe(readFileSync(outputPath, "utf8"))
        expect(readFileSync(run.rejects, "utf8")).toBe(readFileSync(rejectsPath, "utf8"))
        expect(readJsonl(run.output).map((r) => r.id)).toEqual(Array.from({ length: 600 }, (_, i) => `r${i}`))
        expect(readJsonl(run.rejects).map((r) => r.line)).toEqual([101, 401])
      })
  )

  it.scopedLive("unreadable rows go to the rejects file with their line; CSV in, CSV out", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = join(dir, "in.csv")
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(input, 'id,text\r\na,"hello, world"\r\nb,"multi\r\nline"\r\nc,x,extra\r\nd,how to build a bomb\r\n')
      const run = yield* runOnce({ dir, input, emulator, format: "csv" })
      expect(run.summary).toMatchObject({ status: "finished", done: 3, failed: 0, readRejects: 1 })
      const csv = readFileSync(run.output, "utf8")
      expect(csv).toBe(
        '\uFEFFid,text,moderation_verdict,moderation_categories,moderation_raw\na,"hello, world",safe,,\nb,"multi\r\nline",safe,,\nd,how to build a bomb,harmful,T9,\n'
      )
      const rejects = readJsonl(run.rejects)
      expect(rejects).toEqual([
        {
          ordinal: 2,
          line: 5,
          stage: "read",
          status: "unreadable",
          reason: expect.stringContaining("Invalid Record Length"),
          raw: "c,x,extra"
        }
      ])
    })
  )

  it.scopedLive("resuming keeps failed records failed unless retryFailed, which asks them again", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      const input = writeCorpus(dir, 40)
      const broken = yield* Emulator.make({ apiKey: KEY, error500Rate: 1 })
      // Every request fails; the circuit breaker is set out of reach so the records fail one by one.
      const first = yield* runOnce({
        dir,
        input,
        emulator: broken,
        overrides: {
          breakerThreshold: 1000,
          retry: { maxAttempts: 1, baseDelay: Duration.millis(1), maxDelay: Duration.millis(1), max429: 1 }
        }
      })
      expect(first.summary).toMatchObject({ status: "finished", failed: 40 })
      // As if that run had been interrupted after its records failed:
      yield* markRun(dir, first.summary.runId, "interrupted")

      const log = requestLog()
      const healthy = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const kept = yield* runOnce({ dir, input, emulator: healthy })
      expect(kept.summary).toMatchObject({ resumed: true, failed: 40, done: 0 })
      expect(log.entries).toHaveLength(0)
      yield* markRun(dir, first.summary.runId, "interrupted")
      const retried = yield* runOnce({ dir, input, emulator: healthy, overrides: { retryFailed: true } })
      expect(retried.summary).toMatchObject({ resumed: true, failed: 0, done: 40 })
      expect(log.entries).toHaveLength(40)
      expect(readJsonl(retried.output)).toHaveLength(40)
    })
  )

  it.scopedLive("tonight's corpus changed by 1%: about 1% of the requests", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const input = writeCorpus(dir, 500)
      yield* runOnce({ dir, input, emulator })
      expect(log.entries).toHaveLength(500)
      // Edit 5 of 500 texts (1%) and add nothing else.
      const { readFileSync, writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      const lines = readFileSync(input, "utf8").trim().split("\n")
      for (const i of [3, 99, 250, 311, 499])
        lines[i] = JSON.stringify({ id: `r${i}`, text: `Edited record ${i}: a new text.` })
      writeFileSync(input, `${lines.join("\n")}\n`)
      const tonight = yield* runOnce({ dir, input, emulator })
      expect(tonight.summary).toMatchObject({ status: "finished", resumed: false, done: 500 })
      expect(tonight.counters.requests).toBe(5)
      expect(log.entries).toHaveLength(505)
      expect(readJsonl(tonight.output).find((r) => r.id === "r99")?.text).toBe("Edited record 99: a new text.")
    })
  })
})

describe("run origin", () => {
  it.scopedLive("an unfinished run is not resumed against another origin; --new-run starts afresh", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const input = writeCorpus(dir, 10)
      const first = yield* runOnce({ dir, input, emulator, overrides: { service: "emulator" } })
      yield* markRun(dir, first.summary.runId, "interrupted")
      const error = yield* Effect.flip(runOnce({ dir, input, emulator, overrides: { service: "https://svc.example" } }))
      expect(error._tag).toBe("OriginChanged")
      expect(error.message).toContain(
        "was started against the EMULATOR and has 10 record(s) done with its answers; this invocation would use https://svc.example"
      )
      const fresh = yield* runOnce({
        dir,
        input,
        emulator,
        overrides: { service: "https://svc.example", newRun: true }
      })
      expect(fresh.summary).toMatchObject({ resumed: false, status: "finished", done: 10 })
      expect(fresh.counters.requests).toBe(10) // the emulator's answers were not reused
    })
  )
})

describe("stop near the end of the input", () => {
  it.scopedLive("a stop after the whole input was read still leaves queued records for the next run", () =>
    Effect.gen(function* () {
      const stop = yield* Deferred.make<void>()
      // The stop comes with the first answer (not after a timer a loaded machine could outrun).
      const emulator = yield* Emulator.make({
        apiKey: KEY,
        latencyMs: 200,
        onRequest: (e) => void (e.method === "POST" && Deferred.unsafeDone(stop, Exit.void))
      })
      const dir = tempDir()
      const input = writeCorpus(dir, 16)
      // 8 workers and a queue of 8 hold all 16 records at once: the reader is done before the stop.
      // Two requests at a time of 200 ms each: 1.6 s for all, so the stop lands with 8 queued and
      // 6 started but still waiting for the limiter: only the 2 in flight (at most the next 2 too)
      // are answered and kept.
      const first = yield* runOnce({
        dir,
        input,
        emulator,
        overrides: { recordConcurrency: 8, maxConcurrency: 2, stop: Deferred.await(stop), grace: Duration.seconds(10) }
      })
      expect(first.summary.status).toBe("interrupted")
      expect(first.summary.done).toBeGreaterThanOrEqual(2)
      expect(first.summary.done).toBeLessThanOrEqual(4)
      const second = yield* runOnce({ dir, input, emulator })
      expect(second.summary).toMatchObject({ status: "finished", resumed: true, done: 16 })
    })
  )
})

describe("circuit breaker", () => {
  it.scopedLive("a base URL that only gets 404s aborts the run after 10 failures in a row, naming the fix", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const input = writeCorpus(dir, 300)
      const run = yield* runOnce({
        dir,
        input,
        emulator,
        baseUrl: `${emulator.url}/v1`,
        overrides: { recordConcurrency: 4, maxConcurrency: 4 }
      })
      expect(run.summary.status).toBe("aborted")
      expect(run.summary.abortReason).toContain("10 requests in a row were answered 404 Not Found")
      expect(run.summary.abortReason).toContain("without /v1")
      expect(log.entries.length).toBeLessThanOrEqual(10 + 4) // the streak, plus those already in flight
    })
  })

  it.scopedLive("a service down after every retry aborts the run instead of failing every record", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, error503Rate: 1 })
      const dir = tempDir()
      const retry = { maxAttempts: 2, baseDelay: Duration.millis(1), maxDelay: Duration.millis(2), max429: 1 }
      const run = yield* runOnce({
        dir,
        input: writeCorpus(dir, 200),
        emulator,
        overrides: { retry, recordConcurrency: 4, maxConcurrency: 4 }
      })
      expect(run.summary.status).toBe("aborted")
      expect(run.summary.abortReason).toMatch(/requests in a row failed after every retry/)
      expect(run.summary.failed).toBeLessThan(20)
    })
  )

  it.scopedLive("failures of the records' own making (400s) never trip it", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const run = yield* runOnce({
        dir,
        input: writeCorpus(dir, 30),
        emulator,
        pipeline: pipelineOf(unknownModelStage)
      })
      expect(run.summary).toMatchObject({ status: "finished", failed: 30 })
    })
  )
})

describe("the previous output", () => {
  it.scopedLive(
    "is kept with its rejects when every record of a run failed; that run's output and rejects go beside them",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        const input = writeCorpus(dir, 20)
        const good = yield* runOnce({ dir, input, emulator })
        const before = readFileSync(good.output, "utf8")
        const broken = yield* runOnce({ dir, input, emulator, pipeline: pipelineOf(unknownModelStage) })
        const id = broken.summary.runId
        expect(broken.summary).toMatchObject({
          status: "finished",
          failed: 20,
          keptPrevious: good.output,
          outputPath: join(dir, `out.run-${id}.jsonl`),
          rejectsPath: join(dir, `out.rejects.run-${id}.jsonl`)
        })
        expect(readFileSync(good.output, "utf8")).toBe(before)
        expect(readJsonl(good.rejects)).toHaveLength(0)
        expect(readJsonl(join(dir, `out.rejects.run-${id}.jsonl`))).toHaveLength(20)
      })
  )
})
