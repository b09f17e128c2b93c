/**
 * The report of a run, built from the ledger alone (no request, ever): the run's summary for every
 * job; for moderation, verdicts, categories, co-occurrences, an optional breakdown by an input
 * column, the flagged records, what changed since the job's previous run and a trend; for
 * translation, records with placeholder warnings and chunk counts. Excerpts and the breakdown need
 * the input's text, which the ledger does not keep: they are filled in when the input the run
 * read is still there, unchanged (same fingerprint), and said to be missing otherwise.
 * The JSON form is this Schema's encoding (for dashboards).
 */
import { Schema } from "effect"
import { DiscoveredRate } from "../ledger/stored.ts"
import { encodingHint } from "../io/encoding.ts"
import { recordsRemovedNote } from "./records-removed.ts"

const Count = Schema.NonNegativeInt

export const CategoryRow = Schema.Struct({
  code: Schema.String,
  /** The service's Japanese name and an English gloss. */
  name: Schema.String,
  gloss: Schema.String,
  count: Count,
  /** Of the harmful records. */
  share: Schema.Number
})

export const FlaggedRecord = Schema.Struct({
  key: Schema.String,
  verdict: Schema.String,
  categories: Schema.Array(Schema.String),
  /** The first characters of the record's text; absent with `excerpt: 0` or without the input. */
  excerpt: Schema.optional(Schema.String),
  /** The guard's own text, for a verdict in a form the spec does not describe. */
  raw: Schema.optional(Schema.String)
})

/** A record flagged by the previous run and not by this one: its former categories, and what became of it. */
export const NoLongerFlagged = Schema.Struct({
  key: Schema.String,
  categories: Schema.Array(Schema.String),
  /** "edited": its request changed (text or settings); "removed": not in this run; "unchanged": judged anew. */
  record: Schema.Literal("edited", "removed", "unchanged")
})

/** A `report.fail` threshold this run exceeded: `value` against `threshold`. */
export const Alert = Schema.Struct({
  /** "newlyFlagged", or "categories.<code>". */
  rule: Schema.String,
  threshold: Count,
  value: Count,
  message: Schema.String
})

export const RunPoint = Schema.Struct({ runId: Count, startedAt: Schema.Number, records: Count, harmful: Count })

export const ModerationSection = Schema.Struct({
  safe: Count,
  harmful: Count,
  /** Verdicts in a form the spec does not describe: reported, never counted as safe. */
  unparsed: Count,
  /** Records with no text to judge (null, empty, blank): nothing was sent; never counted as safe. */
  empty: Schema.optionalWith(Count, { default: () => 0 }),
  categories: Schema.Array(CategoryRow),
  cooccurring: Schema.Array(Schema.Struct({ codes: Schema.String, count: Count })),
  breakdown: Schema.optional(
    Schema.Struct({
      column: Schema.String,
      rows: Schema.Array(Schema.Struct({ value: Schema.String, records: Count, harmful: Count }))
    })
  ),
  flagged: Schema.Array(FlaggedRecord),
  changes: Schema.optional(
    Schema.Struct({
      previousRunId: Count,
      newlyFlagged: Schema.Array(FlaggedRecord),
      noLongerFlagged: Schema.Array(Schema.String),
      categoryDeltas: Schema.Array(
        Schema.Struct({
          code: Schema.String,
          before: Count,
          after: Count,
          /** Records in the category now that were not before, and the other way round. */
          added: Schema.optional(Count),
          removed: Schema.optional(Count)
        })
      ),
      /** Records in this run and not the previous one, the other way round, and in both with another request. */
      records: Schema.optional(Schema.Struct({ added: Count, removed: Count, edited: Count })),
      noLongerFlaggedRecords: Schema.optional(Schema.Array(NoLongerFlagged))
    })
  ),
  trend: Schema.Array(RunPoint)
})
export type ModerationSection = typeof ModerationSection.Type

export const TranslationSection = Schema.Struct({
  warnings: Schema.Array(Schema.Struct({ key: Schema.String, warning: Schema.String })),
  chunked: Schema.Array(Schema.Struct({ key: Schema.String, requests: Count }))
})

export const RunReport = Schema.Struct({
  job: Schema.String,
  runId: Count,
  status: Schema.String,
  startedAt: Schema.Number,
  finishedAt: Schema.NullOr(Schema.Number),
  durationMs: Schema.NullOr(Schema.Number),
  /** Where the answers came from: "emulator" (deterministic stand-ins) or the service's base URL. */
  service: Schema.NullOr(Schema.String),
  /** Whether the input's text was available for excerpts and the breakdown. */
  inputAvailable: Schema.Boolean,
  records: Schema.Struct({
    total: Count,
    done: Count,
    failed: Count,
    unreadable: Count,
    /** Of the unreadable rows, those that are not UTF-8 (absent when none). */
    notUtf8: Schema.optional(Count)
  }),
  /** Retention removed the run's per-record outcomes: `records` are its saved statistics, nothing per record is left. */
  recordsRemoved: Schema.optional(Schema.Literal(true)),
  failures: Schema.Array(
    Schema.Struct({ stage: Schema.String, status: Schema.String, count: Count, example: Schema.String })
  ),
  requests: Count,
  cacheHits: Count,
  tokens: Count,
  retries: Count,
  rateLimited: Count,
  /** Per model run without `limits.rpm`: the rate learnt from the 429s met (rpm: the one to pin). */
  rates: Schema.optional(Schema.Record({ key: Schema.String, value: DiscoveredRate })),
  stageCounters: Schema.Record({ key: Schema.String, value: Count }),
  /** The `report.fail` thresholds exceeded (empty: none); absent when the job sets none. */
  alerts: Schema.optional(Schema.Array(Alert)),
  moderation: Schema.optional(ModerationSection),
  translation: Schema.optional(TranslationSection)
})
export type RunReport = typeof RunReport.Type

export const encodeReportJson = (report: RunReport): string =>
  JSON.stringify(Schema.encodeSync(RunReport)(report), null, 2)

/** What a reader must know before the figures, one sentence each (the report's files and `report`'s lines). */
export const reportNotes = (report: RunReport): ReadonlyArray<string> => {
  const hint = encodingHint(report.records.unreadable, report.records.notUtf8 ?? 0)
  return [
    ...(report.recordsRemoved === true ? [recordsRemovedNote(report.runId)] : []),
    ...(hint === undefined ? [] : [hint])
  ]
}
