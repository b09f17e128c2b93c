/**
 * The shapes of the ledger's JSON columns, each read and written through its Schema:
 * `answers.answer` (the request's own answer Schema, see the stage contract), `records.output`,
 * `records.error` and `runs.counters` (RunStatsSnapshot, in engine/run-stats.ts).
 */
import { Schema } from "effect"

/** Why a record failed (`records.error`; also the rejects file's fields). */
export const FailureInfo = Schema.Struct({
  stage: Schema.String,
  status: Schema.String,
  message: Schema.String,
  attempts: Schema.NonNegativeInt
})
export type FailureInfo = typeof FailureInfo.Type

/**
 * A stored value that stands for (part of) an answer in the `answers` table, so a large answer
 * (a 1536-float vector) is stored once, however many runs and records use it.
 */
export const AnswerRef = Schema.Struct({
  $answer: Schema.String,
  /** The property of the stored answer holding the value; absent: the answer itself. */
  $path: Schema.optional(Schema.String)
})
export type AnswerRef = typeof AnswerRef.Type
export const isAnswerRef = Schema.is(AnswerRef)

/**
 * A row: an object whose values are the stages' typed columns (or references to answers). Its
 * values are checked by the sinks, per column type; here only its shape (one check per row, on
 * the hot path of every rerun).
 */
const Row = Schema.declare(
  (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u),
  { identifier: "Row", description: "an object of column values" }
)
const Rows = Schema.Array(Row)

/** A done record (`records.output`): the content keys of its answers and its assembled rows. */
export const RecordOutput = Schema.Struct({ keys: Schema.Array(Schema.String), rows: Rows })
export type RecordOutput = typeof RecordOutput.Type

const count = Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 })

/** The rate learnt for a model run with no `limits.rpm` (engine/flow/rate-discovery.ts). */
export const DiscoveredRate = Schema.Struct({
  /** The rate to pin in `limits.rpm`, requests per minute; absent when no 429 was met. */
  rpm: Schema.optional(Schema.NonNegativeInt),
  /** The pace at the end of the run, requests per minute. */
  pacedRpm: Schema.NonNegativeInt,
  /** Times the rate was lowered (one per overshoot). */
  decreases: Schema.NonNegativeInt
})
export type DiscoveredRate = typeof DiscoveredRate.Type

/**
 * What a finished run's output was written from (`runs.counters.output`), so that a rerun whose
 * output would come out the same keeps the files instead (engine/output/unchanged-output.ts).
 */
export const OutputManifest = Schema.Struct({
  /** Digest of the settings that decide the output's bytes (paths, formats, store, columns, version). */
  settings: Schema.String,
  /** The input's fingerprint. */
  fingerprint: Schema.String,
  /** Digest of every record's outcome, in input order. */
  outcomes: Schema.String,
  /** The newest answer in the ledger when the output was written (an answer rewritten since is newer). */
  answersAt: Schema.Number,
  /** The files written, as they were just after the commit (a file touched since is rewritten). */
  files: Schema.Array(
    Schema.Struct({ path: Schema.String, size: Schema.Number, mtimeMs: Schema.Number, ino: Schema.Number })
  ),
  /** The store's table as the pass left it: its pass, its records, and how many that pass saw. */
  store: Schema.optional(
    Schema.Struct({
      pass: Schema.String,
      records: Schema.NonNegativeInt,
      current: Schema.NonNegativeInt,
      kept: Schema.NonNegativeInt
    })
  ),
  notProcessed: Schema.NonNegativeInt,
  duplicateRejects: Schema.NonNegativeInt,
  /** The run that wrote the files (a run that kept them names the same one). */
  writtenBy: Schema.Number
})
export type OutputManifest = typeof OutputManifest.Type

/** A run's statistics (`runs.counters`); every field defaults, so older and partial rows decode. */
export const RunStatsSnapshot = Schema.Struct({
  /** Records in the input (an estimate until the reading pass ends, for CSV). */
  total: count,
  totalIsEstimate: Schema.optionalWith(Schema.Boolean, { default: () => true }),
  /** Records finished (done or failed) in this run, including those skipped as already finished. */
  done: count,
  failed: count,
  /** Records found finished by an earlier invocation of this run. */
  skipped: count,
  readRejects: count,
  /** Of those, rows whose bytes are not UTF-8 (an input in another encoding read as UTF-8). */
  readRejectsNotUtf8: count,
  requests: count,
  cacheHits: count,
  retries: count,
  rateLimited: count,
  tokens: count,
  /** When this invocation of the run started (ms since the epoch): its rate is measured from it. */
  since: count,
  /**
   * The run's records by moderation verdict, saved when it finished, so the report's trend still
   * has them after retention dropped the records.
   */
  verdicts: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.NonNegativeInt }), {
    default: () => ({})
  }),
  /** Per model run with no `limits.rpm`: the rate learnt from the 429s met. */
  rates: Schema.optionalWith(Schema.Record({ key: Schema.String, value: DiscoveredRate }), { default: () => ({}) }),
  /**
   * How long this invocation's ledger writes waited for their commit (ms): an answer received but
   * not yet committed is asked again after a SIGKILL. Absent in older runs.
   */
  commitLag: Schema.optional(
    Schema.Struct({ commits: Schema.NonNegativeInt, maxMs: Schema.NonNegative, p99Ms: Schema.NonNegative })
  ),
  /** What the output of a finished run was written from (absent: not known, or written as records finished). */
  output: Schema.optional(OutputManifest),
  /** Counters stages report (e.g. translate_skipped). */
  stages: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.NonNegativeInt }), {
    default: () => ({})
  })
})
export type RunStatsSnapshot = typeof RunStatsSnapshot.Type

export const RecordOutputJson = Schema.parseJson(RecordOutput)
/** Ledgers written before the stage contract v2 stored the rows alone. */
export const LegacyRecordOutputJson = Schema.parseJson(Rows)
export const FailureInfoJson = Schema.parseJson(FailureInfo)

/** Marks an answer Schema whose encoded side is bytes: the ledger stores it as a BLOB, not JSON. */
export const StoredAsBlob: unique symbol = Symbol.for("svc-batch/StoredAsBlob")

/** A vector's values: numbers as the service sends them, or Float32 values as the ledger keeps them. */
export type VectorValues = ReadonlyArray<number> | Float32Array

/** A list of numbers (checked by its first element: a 1536-float vector is read on every warm record), or a Float32Array. */
const Floats = Schema.declare(
  (u: unknown): u is VectorValues =>
    u instanceof Float32Array || (Array.isArray(u) && (u.length === 0 || typeof u[0] === "number")),
  {
    identifier: "Floats",
    description: "a list of numbers"
  }
)

/**
 * A vector answer, stored compactly: little-endian Float32 (4 bytes a value, 6 KiB for 1536
 * dimensions, against ~20 KiB as JSON). Float32 is what vector stores keep anyway; the service's
 * values survive to about 7 significant digits.
 */
export const Float32Vector = Schema.transform(Schema.Uint8ArrayFromSelf, Floats, {
  strict: true,
  // A Float32Array over the stored bytes, not 1,536 numbers: a warm rerun reads a window's vectors
  // only to reference them, and arrays of numbers held for a window were most of its garbage.
  decode: (bytes) => float32Values(bytes),
  // A Buffer (a Uint8Array) is what better-sqlite3 binds as a BLOB.
  encode: (values) => Buffer.from(Float32Array.from(values).buffer)
}).annotations({ [StoredAsBlob]: true, identifier: "Float32Vector" })

/**
 * A BLOB answer's Float32 values as they are, without making numbers of them (the output pass
 * copies them into Parquet pages and the vector store as bytes): a view when 4-aligned, else a copy.
 */
export const float32Values = (bytes: Uint8Array): Float32Array =>
  bytes.byteOffset % 4 === 0
    ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2)
    : new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))

export const isStoredAsBlob = (schema: Schema.Schema.Any): boolean => schema.ast.annotations[StoredAsBlob] === true
