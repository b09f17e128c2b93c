/**
 * The ledger port: every answer by content key (so no text is paid for twice, within a run, across
 * runs, and across the machines that share one ledger), and per run which records are done or
 * failed. Two adapters implement it: SQLite in a file (sqlite-ledger.ts, the default) and
 * PostgreSQL shared by many machines (postgres-ledger.ts); `jobLedger` (job/job-context.ts) picks
 * one. Both run the same conformance suite (test/ledger/ledger-conformance.ts).
 *
 * Writes gather in a write-behind buffer committed in batches at most a few ms late, so no
 * transaction ever spans an HTTP call and the hot path never waits for the disk or the network.
 * `flush` commits everything written before it. Every JSON column is written and read through a
 * Schema (answers through the request's own answer Schema; see answer-codec.ts and stored.ts).
 */
import { Context, Data, type Effect, type Option, type Schema } from "effect"
import { ExitCode } from "../exit-code.ts"
import type { CommitLag } from "./write-buffer.ts"
import type { FailureInfo, RecordOutput, RunStatsSnapshot } from "./stored.ts"

export class LedgerError extends Data.TaggedError("LedgerError")<{
  readonly path: string
  readonly detail: string
  /**
   * The disk failed a write (full, quota, I/O error): the ledger is sound but could not take what
   * the run wrote, maybe after requests were sent (exit 9). Absent: it cannot be opened or is not
   * a ledger (exit 2).
   */
  readonly io?: boolean
  /**
   * The ledger's server could not be reached or refused the connection (PostgreSQL down, wrong
   * host, authentication refused): exit 10. What was committed stays; the run resumes once it is
   * back. `path` then names the server without its password.
   */
  readonly unreachable?: boolean
  /** What SQLite, PostgreSQL or the system threw, kept for logs and debugging. */
  readonly cause?: unknown
}> {
  /** Exit 10 when the server is unreachable, 9 when the disk failed a write (requests may have been sent; it resumes), else 2. */
  get exitCode() {
    return this.unreachable === true
      ? ExitCode.ledgerUnreachable
      : this.io === true
        ? ExitCode.outputNotWritten
        : ExitCode.invalid
  }
  override get message() {
    return `ledger ${this.path}: ${this.detail}`
  }
}

export type RecordStatus = "done" | "failed"
export type RunStatus = "running" | "interrupted" | "finished" | "aborted"

/**
 * The Schema of a stored answer; its encoded side is JSON.
 * any: Schema is invariant in its encoded type, and what it encodes to is the schema's own business.
 */
export type StoredSchema<A> = Schema.Schema<A, any>

export interface Run {
  readonly id: number
  readonly job: string
  readonly fingerprint: string
  readonly status: RunStatus
  readonly startedAt: number
  readonly finishedAt: number | null
  readonly stats: RunStatsSnapshot
  /** Where its answers came from: "emulator" or the service's base URL; null for older runs. */
  readonly service: string | null
  /** When its statistics were last saved (a running run saves them every few seconds). */
  readonly updatedAt: number | null
}

export type RecordOutcome =
  { readonly _tag: "Done"; readonly output: RecordOutput } | { readonly _tag: "Failed"; readonly error: FailureInfo }

export interface StoredRecord {
  readonly key: string
  readonly outcome: RecordOutcome
}

/**
 * A record as stored, not decoded: its outcome's JSON text (`output` when done, `error` when
 * failed), as both adapters write it for the same outcome, so two records' texts can be compared
 * as they are and only those that need it decoded (`toOutcome` in outcome-codec.ts).
 */
export interface StoredRecordText {
  readonly ordinal: number
  readonly key: string
  readonly status: RecordStatus
  readonly output: string | null
  readonly error: string | null
}

/** A stored answer as read, before its Schema decodes it. */
export type StoredAnswer = string | Uint8Array

/** A run's recorded outcomes by ordinal: one byte per ordinal, not an object per record. */
export interface RecordStatuses {
  readonly get: (ordinal: number) => RecordStatus | undefined
  readonly size: number
}

export interface AnswerEntry {
  readonly key: string
  readonly endpoint: string
  readonly model: string
  readonly tokens: number
}

export interface LedgerService {
  /** The ledger's file, or its server's URL without the password: for messages. */
  readonly path: string
  /** A stored (or queued) answer written at or after `since` (ms), decoded; none if absent or of another shape. */
  readonly answer: <A>(key: string, schema: StoredSchema<A>, since?: number) => Effect.Effect<Option.Option<A>>
  /**
   * Stored (or queued) answers for many keys at once (one query, not one per key), written at or
   * after `since`, in the keys' order; undefined where a key has no answer. Decode each with its
   * request's Schema (`decodeAnswer`).
   */
  readonly answersFor: (
    keys: ReadonlyArray<string>,
    since?: number
  ) => Effect.Effect<ReadonlyArray<StoredAnswer | undefined>>
  /**
   * Whether each key has an answer in bytes (a vector) stored (or queued), written at or after
   * `since`, in the keys' order, without reading the bytes: for answers a record only refers to.
   */
  readonly inBytes: (keys: ReadonlyArray<string>, since?: number) => Effect.Effect<ReadonlyArray<boolean>>
  /** Whether an answer is stored (or queued) under `key`, without reading it. */
  readonly hasAnswer: (key: string) => Effect.Effect<boolean>
  /**
   * When the newest committed answer was written (ms; 0: none): an answer written or rewritten
   * since a moment is newer than it (an output kept as it was needs none to be). Flush first.
   */
  readonly lastAnswerAt: Effect.Effect<number>
  /** A stored answer as plain JSON (to resolve a reference to it). */
  readonly answerJson: (key: string) => Effect.Effect<Option.Option<unknown>>
  /** Buffers an answer (committed a few ms later); fails when an earlier commit failed (e.g. disk full). */
  readonly putAnswer: <A>(entry: AnswerEntry, schema: StoredSchema<A>, value: A) => Effect.Effect<void, LedgerError>
  readonly record: (runId: number, ordinal: number) => Effect.Effect<Option.Option<StoredRecord>>
  /** Every committed record of a run by ordinal, done or failed, in one scan (a resumed run's done set). */
  readonly recordStatuses: (runId: number) => Effect.Effect<RecordStatuses>
  /** A page of a run's records in ordinal order, from `fromOrdinal` on (a scan, not a lookup per record). */
  readonly records: (
    runId: number,
    fromOrdinal: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<StoredRecord & { readonly ordinal: number }>>
  /** `records`' page as stored: each outcome's JSON text, not decoded (the report compares runs by it). */
  readonly recordTexts: (
    runId: number,
    fromOrdinal: number,
    limit: number
  ) => Effect.Effect<ReadonlyArray<StoredRecordText>>
  readonly putRecord: (
    runId: number,
    ordinal: number,
    key: string,
    outcome: RecordOutcome
  ) => Effect.Effect<void, LedgerError>
  /** Many records' outcomes at once (a window of a warm rerun): one effect, not one per record. */
  readonly putRecords: (
    runId: number,
    records: ReadonlyArray<{ readonly ordinal: number; readonly key: string; readonly outcome: RecordOutcome }>
  ) => Effect.Effect<void, LedgerError>
  /** Commits everything written before it. */
  readonly flush: Effect.Effect<void, LedgerError>
  /** How long writes waited for their commit so far (on PostgreSQL: the round trip included). */
  readonly commitLag: () => CommitLag
  readonly lastRun: (job: string) => Effect.Effect<Option.Option<Run>>
  /** The job's runs, newest first. */
  readonly runs: (job: string, limit: number) => Effect.Effect<ReadonlyArray<Run>>
  /** Done records of a run by the value of one output column of their first row (e.g. the verdict). */
  readonly countByColumn: (
    runId: number,
    column: string
  ) => Effect.Effect<ReadonlyArray<{ readonly value: string | null; readonly n: number }>>
  readonly run: (id: number) => Effect.Effect<Option.Option<Run>>
  readonly startRun: (job: string, fingerprint: string) => Effect.Effect<number, LedgerError>
  /** Records where the run's answers come from ("emulator" or a base URL). */
  readonly setRunService: (id: number, service: string) => Effect.Effect<void, LedgerError>
  /** Sets a run's status and statistics (after a flush, so they agree with the records). */
  readonly setRun: (id: number, status: RunStatus, stats: RunStatsSnapshot) => Effect.Effect<void, LedgerError>
  readonly counts: (runId: number) => Effect.Effect<Readonly<Record<RecordStatus, number>>>
  /** Record keys that more than one record of the run has, with the first such record's ordinal (one sorted scan). */
  readonly duplicateKeys: (
    runId: number
  ) => Effect.Effect<ReadonlyMap<string, { readonly first: number; readonly count: number }>>
  /**
   * Retention: deletes the per-record outcomes of the job's runs older than its newest `keepRuns`
   * (their run rows and statistics stay), then answers that no kept record refers to and that are
   * older than `answersBefore` (ms since the epoch). SQLite then compacts the file when a quarter or
   * more of it is free (with `nextRunReuses`, free beyond what the next run's records will take
   * back); PostgreSQL leaves the space to autovacuum (never VACUUM FULL: it locks the tables every
   * worker shares). Flushes first; never run it while the job runs elsewhere.
   */
  readonly gc: (
    job: string,
    keepRuns: number,
    answersBefore: number,
    options?: GcOptions
  ) => Effect.Effect<GcResult, LedgerError>
}

export interface GcOptions {
  /**
   * Retention after a finished run: the job runs again, and SQLite reuses free pages before it
   * grows the file, so the pages the deleted runs' records leave are taken back by the next run's
   * records (in proportion: the newest run's records against those deleted). Compacting them away
   * would rewrite the whole file every night only for it to grow back the next (measured: 50,000
   * records a night freed 28 % of the file, and VACUUM took ~0.3 s of a 3 s warm run).
   */
  readonly nextRunReuses?: boolean
}

export interface GcResult {
  /** Runs whose records were deleted. */
  readonly runs: ReadonlyArray<number>
  readonly records: number
  readonly answers: number
  /** The ledger's size: SQLite's file; PostgreSQL's tables with their indexes and TOAST. */
  readonly bytesBefore: number
  readonly bytesAfter: number
  /** SQLite ran VACUUM; always false on PostgreSQL. */
  readonly compacted: boolean
}

export class Ledger extends Context.Tag("svc-batch/Ledger")<Ledger, LedgerService>() {}
