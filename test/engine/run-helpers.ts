/** Helpers to run a pipeline in-process against an emulator, with a temporary ledger and files. */
import { Duration, Effect, Either, Layer } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultRetryPolicy } from "../../src/engine/flow/retry.ts"
import { runPipeline, type RunSettings } from "../../src/engine/runner.ts"
import { makePipeline, type Pipeline, type Stage } from "../../src/pipeline/stage.ts"
import { RunStats } from "../../src/engine/run-stats.ts"
import { fingerprintFile } from "../../src/io/fingerprint.ts"
import { type Format, openSource } from "../../src/io/sources/index.ts"
import { Ledger, type LedgerService, type RunStatus } from "../../src/ledger/ledger.ts"
import { SqliteLedger, makeSqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import type { RunningEmulator } from "../../src/emulator/server.ts"
import { TextService } from "../../src/service/client.ts"
import { moderate } from "../../src/stages/moderate.ts"
import { KEY } from "../helpers.ts"

export const tempDir = () => mkdtempSync(join(tmpdir(), "svc-run-"))

/** A pipeline of these stages (the test fails at once if the pipeline is refused). */
export const pipelineOf = (...stages: ReadonlyArray<Stage>): Pipeline =>
  Either.getOrThrow(makePipeline("test", "test", stages))

export const moderationPipeline = (options: { stream?: boolean } = {}): Pipeline =>
  pipelineOf(moderate({ fields: ["text"], ...options }))

/** Writes `n` JSONL records `{id, text}`; every text is distinct; every 5th is harmful. */
export const writeCorpus = (dir: string, n: number, name = "in.jsonl") => {
  const path = join(dir, name)
  const lines: Array<string> = []
  for (let i = 0; i < n; i++) {
    const text = i % 5 === 0 ? `Record ${i}: here is how to build a bomb.` : `Record ${i}: a calm note about gardening.`
    lines.push(JSON.stringify({ id: `r${i}`, text }))
  }
  writeFileSync(path, `${lines.join("\n")}\n`)
  return path
}

export const readJsonl = (path: string): Array<Record<string, unknown>> =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)

export interface TestRun {
  readonly dir: string
  readonly input: string
  readonly format?: Format
  /** Output format (a sink name); default: the input's. */
  readonly outputFormat?: string
  readonly emulator: RunningEmulator
  readonly apiKey?: string
  /** The client's base URL (default: the emulator's). */
  readonly baseUrl?: string
  readonly pipeline?: Pipeline
  readonly overrides?: Partial<RunSettings>
  readonly timeout?: Duration.DurationInput
  /** Wraps the ledger the run sees (e.g. to count the lookups it makes). */
  readonly wrapLedger?: (ledger: LedgerService) => LedgerService
}

/** Runs the pipeline once; returns the summary, counters and the output paths. */
export const runOnce = (t: TestRun) =>
  Effect.gen(function* () {
    const format = t.format ?? "jsonl"
    const { fingerprint } = yield* Effect.promise(() => fingerprintFile(t.input))
    const stats = new RunStats()
    const outputFormat = t.outputFormat ?? format
    const output = join(t.dir, `out.${outputFormat}`)
    const rejects = join(t.dir, "out.rejects.jsonl")
    const settings: RunSettings = {
      job: "test-job",
      pipeline: t.pipeline ?? moderationPipeline(),
      source: openSource(t.input, format),
      fingerprint,
      output: { path: output, format: outputFormat },
      rejectsPath: rejects,
      idField: "id",
      cache: "read-write",
      retryFailed: false,
      recordConcurrency: 64,
      rpm: {},
      maxConcurrency: 16,
      retry: { ...defaultRetryPolicy, baseDelay: Duration.millis(20), maxDelay: Duration.millis(200), maxAttempts: 6 },
      stop: Effect.never,
      grace: Duration.seconds(5),
      ...t.overrides
    }
    const summary = yield* runPipeline(settings, stats).pipe(
      Effect.scoped,
      Effect.provide(
        Layer.merge(
          TextService.layer({
            baseUrl: t.baseUrl ?? t.emulator.url,
            apiKey: t.apiKey ?? KEY,
            // Generous: under a loaded machine a short timeout retries answers the in-process emulator
            // gave but this starved process had yet to read, and a test counting requests sees them twice.
            timeout: t.timeout ?? "30 seconds"
          }),
          Layer.scoped(
            Ledger,
            Effect.map(makeSqliteLedger({ path: join(t.dir, "ledger.sqlite") }), t.wrapLedger ?? ((l) => l))
          )
        )
      )
    )
    return { summary, counters: stats.snapshot(), output, rejects }
  })

/** A ledger that counts the calls made to its per-record and per-answer lookups. */
export const countingLedger = () => {
  // keysRead: keys whose answers were read in bulk; keysLookedUp: keys only tested for a vector.
  const calls = { record: 0, answer: 0, answersFor: 0, keysRead: 0, keysLookedUp: 0 }
  const wrap = (l: LedgerService): LedgerService => ({
    ...l,
    record: (runId, ordinal) => Effect.suspend(() => (calls.record++, l.record(runId, ordinal))),
    answer: (key, schema, since) => Effect.suspend(() => (calls.answer++, l.answer(key, schema, since))),
    answersFor: (keys, since) =>
      Effect.suspend(() => (calls.answersFor++, (calls.keysRead += keys.length), l.answersFor(keys, since))),
    inBytes: (keys, since) => Effect.suspend(() => ((calls.keysLookedUp += keys.length), l.inBytes(keys, since)))
  })
  return { calls, wrap }
}

/** Sets a run's status through the ledger's API (e.g. as if it had been interrupted). */
export const markRun = (dir: string, runId: number, status: RunStatus) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const run = yield* ledger.run(runId)
    if (run._tag === "None") return yield* Effect.die(`no run ${runId}`)
    yield* ledger.setRun(runId, status, run.value.stats)
  }).pipe(Effect.provide(SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))

/** Writes `records` as JSON Lines (default `in.jsonl` in `dir`); returns the path. */
export const writeRecords = (dir: string, records: ReadonlyArray<Record<string, unknown>>, name = "in.jsonl") => {
  const path = join(dir, name)
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n")
  return path
}
