/**
 * What a work unit carries to any worker: the job (its file and the command line's overrides, so
 * the worker resolves the very job the coordinator did), the input and its fingerprint, the run
 * and the part of the input to process.
 */
import { Schema } from "effect"
import { InputUnit } from "../io/source.ts"

export const UnitPayload = Schema.Struct({
  runId: Schema.Number,
  index: Schema.Number,
  /** The job file, absolute: at the same path on every machine (a shared volume). */
  jobFile: Schema.String,
  /** The coordinator's overrides of the job (paths absolute), without its ledger. */
  overrides: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  input: Schema.String,
  format: Schema.String,
  fingerprint: Schema.String,
  unit: InputUnit,
  startedAt: Schema.Number,
  retryFailed: Schema.Boolean,
  /** Attempts after the first before the unit fails for good. */
  retryLimit: Schema.Number,
  /** How often the worker reports that it still works on the unit (ms). */
  heartbeatMs: Schema.Number
})
export type UnitPayload = typeof UnitPayload.Type
