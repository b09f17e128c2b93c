/**
 * Runs a pipeline over a source, resumably:
 * 1. the run: the same job's last unfinished run over the same input is resumed, else a new one;
 * 2. the processing pass: records stream from the source; a record already done in this run is
 *    skipped; each stage's requests are answered (ledger, in flight, or the service); the record's
 *    outcome (output fields, or failure with reason) goes to the ledger through its writer;
 * 3. the output pass (only when every record is done or failed): the source is read again and
 *    each record joined with its outcome, in input order, into the output and rejects files,
 *    written atomically.
 * A stop request ends the reading; records in flight finish (within a grace period); the ledger
 * is flushed; the run stays resumable.
 */
import { Data, Duration, Effect, Queue, Stream } from "effect"
import { Ledger, type FailureInfo } from "../ledger/ledger.ts"
import { jsonlWriter, type RowWriter, writerFor } from "../io/writers.ts"
import type { Format, Source, SourceRecord } from "../io/source.ts"
import { makeAnswers, type CacheMode } from "./answers.ts"
import type { Counters } from "./counters.ts"
import type { RequestFailed, RetryPolicy } from "./retry.ts"
import { type Fields, type Pipeline, StageInputError } from "./stage.ts"

export class OutputError extends Data.TaggedError("OutputError")<{ readonly path: string; readonly detail: string }> {
  override get message() {
    return `cannot write ${this.path}: ${this.detail}`
  }
}

export interface RunSettings {
  readonly job: string
  readonly pipeline: Pipeline
  readonly source: Source
  readonly fingerprint: string
  readonly output: { readonly path: string; readonly format: Format }
  readonly rejectsPath: string
  /** Column holding a stable record id; else fingerprint:ordinal. */
  readonly idField?: string | undefined
  readonly cache: CacheMode
  readonly retryFailed: boolean
  /** Records in progress at once. */
  readonly recordConcurrency: number
  readonly rpm: Readonly<Record<string, number>>
  readonly maxConcurrency: number
  readonly retry: RetryPolicy
  /** Completes when the user asks to stop (first SIGINT/SIGTERM). */
  readonly stop: Effect.Effect<void>
  /** How long records in flight may take to finish after a stop. */
  readonly grace: Duration.Duration
}

export interface RunSummary {
  readonly runId: number
  readonly resumed: boolean
  readonly status: "finished" | "interrupted" | "aborted"
  readonly done: number
  readonly failed: number
  readonly readRejects: number
  readonly abortReason?: string
  readonly outputPath?: string
  readonly rejectsPath?: string
}

class RecordFailed extends Data.TaggedError("RecordFailed")<{ readonly info: FailureInfo }> {}

export const runPipeline = (settings: RunSettings, counters: Counters) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const { pipeline } = settings

    // 1. the run
    const last = ledger.lastRun(settings.job)
    const resumed = last !== undefined && last.status !== "finished" && last.fingerprint === settings.fingerprint
    const runId = resumed ? last.id : ledger.startRun(settings.job, settings.fingerprint)
    const startedAt = resumed ? last.started_at : Date.now()
    ledger.setRun(runId, "running", counters)

    const answer = yield* makeAnswers(ledger, counters, settings, startedAt)
    const keyOf = (r: SourceRecord) => {
      const id = settings.idField !== undefined ? r.fields[settings.idField] : undefined
      return id !== undefined && id !== null && id !== "" ? String(id) : `${settings.fingerprint.slice(0, 12)}:${r.ordinal}`
    }

    const runStages = (record: SourceRecord) =>
      Effect.gen(function* () {
        let fields: Fields = record.fields
        let single: Record<string, unknown> = {}
        let rows: ReadonlyArray<Fields> = [{}]
        for (const stage of pipeline.stages) {
          if (stage.when && !stage.when(fields)) {
            const empty = Object.fromEntries(stage.outputs.map((c) => [c, ""]))
            single = { ...single, ...empty }
            fields = { ...fields, ...empty }
            continue
          }
          const requests = stage.requests(fields)
          if (requests instanceof StageInputError) {
            return yield* new RecordFailed({ info: { stage: stage.name, status: "input", message: requests.message, attempts: 0 } })
          }
          const asked = requests.length === 1 ? Effect.map(answer(requests[0]!), (a) => [a]) : Effect.forEach(requests, answer, { concurrency: "unbounded" })
          const answers = yield* asked.pipe(
            Effect.catchTag("RequestFailed", (e: RequestFailed) =>
              Effect.fail(new RecordFailed({ info: { stage: stage.name, status: e.status, message: e.detail, attempts: e.attempts } }))
            )
          )
          const sets = stage.combine(fields, answers)
          if (sets.length === 1) {
            single = { ...single, ...sets[0] }
            fields = { ...fields, ...sets[0] }
            rows = [single]
          } else {
            rows = sets.map((s) => ({ ...single, ...s }))
          }
        }
        return rows
      })

    const processRecord = (record: SourceRecord) =>
      Effect.gen(function* () {
        const existing = ledger.record(runId, record.ordinal)
        if (existing?.status === "done" || (existing?.status === "failed" && !settings.retryFailed)) {
          counters.skipped++
          if (existing.status === "failed") counters.failed++
          else counters.done++
          return
        }
        const key = keyOf(record)
        yield* runStages(record).pipe(
          Effect.flatMap((rows) =>
            Effect.suspend(() => {
              counters.done++
              return ledger.write({ _tag: "Record", runId, ordinal: record.ordinal, key, status: "done", output: JSON.stringify(rows), error: null })
            })
          ),
          // A failed record is an outcome, not an error of the run; JobAborted still stops the run.
          Effect.catchTag("RecordFailed", (failure) =>
            Effect.suspend(() => {
              counters.failed++
              return ledger.write({ _tag: "Record", runId, ordinal: record.ordinal, key, status: "failed", output: null, error: JSON.stringify(failure.info) })
            })
          )
        )
      })

    // 2. the processing pass
    let stopped = false
    const stopSignal = settings.stop.pipe(Effect.tap(() => Effect.sync(() => void (stopped = true))))
    // A fixed pool of workers takes records from a bounded queue (cheaper per record than a
    // forked fiber each); the reader ends early on a stop, the workers then drain what is queued.
    const work = yield* Queue.bounded<SourceRecord | undefined>(settings.recordConcurrency)
    const workers = settings.recordConcurrency
    const reader = settings.source.items().pipe(
      Stream.interruptWhen(stopSignal),
      Stream.runForEach((item) => {
        if (item._tag === "Reject") {
          counters.readRejects++
          return Effect.void
        }
        return Queue.offer(work, item)
      }),
      // One end marker per worker once reading is over (normally or by a stop). Not on failure:
      // then the workers are interrupted and nobody would take them.
      Effect.zipRight(Effect.forEach(Array.from({ length: workers }), () => Queue.offer(work, undefined), { discard: true }))
    )
    const worker = Effect.gen(function* () {
      while (true) {
        const record = yield* Queue.take(work)
        if (record === undefined) return
        // After a stop, queued records are not started (they stay pending for the next run),
        // but still taken, so the reader's end markers get through.
        if (!stopped) yield* processRecord(record)
      }
    })
    const pass = Effect.all([reader, ...Array.from({ length: workers }, () => worker)], { concurrency: "unbounded", discard: true })
    // After a stop, records in flight get `grace` to finish; then they are interrupted (still pending).
    const bounded = Effect.raceFirst(pass, settings.stop.pipe(Effect.zipRight(Effect.sleep(settings.grace)), Effect.zipRight(Effect.sync(() => void (stopped = true)))))
    const result = yield* Effect.either(bounded)
    yield* ledger.flush
    if (!stopped) {
      counters.total = counters.done + counters.failed
      counters.totalIsEstimate = false
    }

    if (result._tag === "Left") {
      const error = result.left
      if (error._tag === "JobAborted") {
        ledger.setRun(runId, "aborted", counters)
        const counts = ledger.counts(runId)
        return { runId, resumed, status: "aborted", done: counts.done, failed: counts.failed, readRejects: counters.readRejects, abortReason: error.reason } satisfies RunSummary
      }
      return yield* Effect.fail(error)
    }
    if (stopped) {
      ledger.setRun(runId, "interrupted", counters)
      const counts = ledger.counts(runId)
      return { runId, resumed, status: "interrupted", done: counts.done, failed: counts.failed, readRejects: counters.readRejects } satisfies RunSummary
    }

    // 3. the output pass
    yield* writeOutputs(settings, runId)
    ledger.setRun(runId, "finished", counters)
    const counts = ledger.counts(runId)
    return {
      runId,
      resumed,
      status: "finished",
      done: counts.done,
      failed: counts.failed,
      readRejects: counters.readRejects,
      outputPath: settings.output.path,
      rejectsPath: settings.rejectsPath
    } satisfies RunSummary
  })

/** Joins every input record with its outcome, in input order, into the output and rejects files. */
const writeOutputs = (settings: RunSettings, runId: number) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const outputColumns = [...new Set(settings.pipeline.stages.flatMap((s) => s.outputs))]
    const declared = yield* Effect.promise(() => settings.source.columns())
    let writer: RowWriter | undefined
    const rejects = jsonlWriter(settings.rejectsPath)
    const open = (first: Fields): RowWriter => {
      const input = declared ?? Object.keys(first)
      const columns = [...input, ...outputColumns.filter((c) => !input.includes(c))]
      return writerFor(settings.output.format, settings.output.path, columns, new Set(outputColumns))
    }
    const io = (path: string, f: () => Promise<void>) =>
      Effect.tryPromise({ try: f, catch: (e) => new OutputError({ path, detail: (e as Error).message }) })

    const written = settings.source.items().pipe(
      Stream.runForEach((item) =>
        Effect.gen(function* () {
          if (item._tag === "Reject") {
            return yield* io(settings.rejectsPath, () =>
              rejects.write({ ordinal: item.ordinal, line: item.line, stage: "read", status: "unreadable", reason: item.reason, raw: item.raw })
            )
          }
          const row = ledger.record(runId, item.ordinal)
          if (row?.status === "done" && row.output !== null) {
            writer ??= open(item.fields)
            const w = writer
            for (const out of JSON.parse(row.output) as ReadonlyArray<Fields>) {
              yield* io(settings.output.path, () => w.write({ ...item.fields, ...out }))
            }
            return
          }
          const info: FailureInfo = row?.error ? (JSON.parse(row.error) as FailureInfo) : { stage: "-", status: "not processed", message: "no outcome recorded", attempts: 0 }
          yield* io(settings.rejectsPath, () =>
            rejects.write({ ordinal: item.ordinal, line: item.line, key: row?.key, stage: info.stage, status: info.status, reason: info.message, attempts: info.attempts })
          )
        })
      )
    )
    const committed = Effect.gen(function* () {
      yield* written
      writer ??= open({})
      const w = writer
      yield* io(settings.output.path, () => w.commit())
      yield* io(settings.rejectsPath, () => rejects.commit())
    })
    yield* committed.pipe(
      Effect.onError(() =>
        Effect.sync(() => {
          writer?.abort()
          rejects.abort()
        })
      )
    )
  })
