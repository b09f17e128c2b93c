/**
 * Records' outcomes and runs' rows as both ledger adapters store them: `records.output` /
 * `records.error` JSON and `runs.counters`, each through its Schema (stored.ts), with the hand-written
 * fast paths the hot path needs.
 */
import { Either, Schema } from "effect"
import type { RecordOutcome, RecordStatus, Run, RunStatus } from "./ledger.ts"
import {
  FailureInfoJson,
  LegacyRecordOutputJson,
  RecordOutputJson,
  RunStatsSnapshot,
  type RecordOutput
} from "./stored.ts"

/** A run's row (snake_case, as both adapters' `runs` table has it). */
export interface RunRow {
  readonly id: number
  readonly job: string
  readonly fingerprint: string
  readonly status: RunStatus
  readonly started_at: number
  readonly finished_at: number | null
  readonly counters: string
  readonly service: string | null
  readonly updated_at: number | null
}

/** A record's stored columns. */
export interface RecordRow {
  readonly status: RecordStatus
  readonly key: string
  readonly output: string | null
  readonly error: string | null
}

const decodeStats = Schema.decodeUnknownSync(Schema.parseJson(RunStatsSnapshot))
export const encodeStats = Schema.encodeSync(Schema.parseJson(RunStatsSnapshot))
const decodeCurrentOutput = Schema.decodeUnknownEither(RecordOutputJson)
const decodeLegacyOutput = Schema.decodeUnknownSync(LegacyRecordOutputJson)
/** The current shape, checked by hand: this runs for every record of every output pass. */
const isCurrentOutput = (u: unknown): u is RecordOutput => {
  if (u === null || typeof u !== "object" || Array.isArray(u)) return false
  const { keys, rows } = u as { keys?: unknown; rows?: unknown }
  if (!Array.isArray(keys) || !Array.isArray(rows)) return false
  for (const k of keys) if (typeof k !== "string") return false
  for (const r of rows) if (r === null || typeof r !== "object" || Array.isArray(r)) return false
  return true
}
const decodeOutput = (json: string): RecordOutput => {
  try {
    const parsed: unknown = JSON.parse(json)
    if (isCurrentOutput(parsed)) return parsed
  } catch {
    // not JSON: the Schema below says why
  }
  return Either.getOrElse(decodeCurrentOutput(json), () => ({
    keys: [],
    rows: decodeLegacyOutput(json) as RecordOutput["rows"]
  }))
}
/**
 * The engine builds outcomes itself (RecordOutput's encoded side is its JSON: strings and plain
 * row objects), so they are written with JSON.stringify, not re-checked by the Schema per record.
 */
export const encodeOutput = (output: RecordOutput): string => JSON.stringify(output)
const decodeError = Schema.decodeUnknownSync(FailureInfoJson)
export const encodeError = Schema.encodeSync(FailureInfoJson)

export const toOutcome = (row: RecordRow): RecordOutcome =>
  row.status === "done"
    ? { _tag: "Done", output: decodeOutput(row.output ?? "[]") }
    : { _tag: "Failed", error: decodeError(row.error ?? "{}") }

export const toRun = (row: RunRow): Run => ({
  id: row.id,
  job: row.job,
  fingerprint: row.fingerprint,
  status: row.status,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  stats: decodeStats(row.counters),
  service: row.service,
  updatedAt: row.updated_at
})

/** `countByColumn`'s JSON paths: the column of the first row, in the v2 shape and the older rows-only one. */
export const columnPaths = (column: string): readonly [current: string, legacy: string] => {
  const path = `."${column.replaceAll('"', '""')}"`
  return [`$.rows[0]${path}`, `$[0]${path}`]
}

/** A run's outcomes by ordinal, one byte each (0: none, 1: done, 2: failed), grown as ordinals are met. */
export const statusTable = () => {
  let bytes = new Uint8Array(1024)
  let size = 0
  return {
    add: (ordinal: number, status: RecordStatus) => {
      if (ordinal >= bytes.length) {
        const grown = new Uint8Array(Math.max(bytes.length * 2, ordinal + 1))
        grown.set(bytes)
        bytes = grown
      }
      bytes[ordinal] = status === "done" ? 1 : 2
      size++
    },
    done: () => {
      const table = bytes
      return {
        size,
        get: (ordinal: number): RecordStatus | undefined =>
          ordinal < table.length
            ? table[ordinal] === 1
              ? "done"
              : table[ordinal] === 2
                ? "failed"
                : undefined
            : undefined
      }
    }
  }
}
