/**
 * Builds a run's report from the ledger (and, when it is still there unchanged, the input it read,
 * for excerpts and the breakdown): one pass over the run's records in ordinal order (none when the
 * output tallied them), one over this run's and the previous run's side by side for the changes,
 * and a count per run for the trend. Sends nothing.
 */
import { Chunk, Data, Effect, Option, Stream } from "effect"
import type { Source, SourceError } from "../io/source.ts"
import { outcomeReader } from "../engine/output/outcome-reader.ts"
import { Ledger, type LedgerService, type Run, type StoredRecord } from "../ledger/ledger.ts"
import { Categories, CategoryCodes, isCategoryCode } from "../service/moderation.ts"
import type { ModerationSection, RunReport } from "./run-report.ts"
import { makeReportTally, type ReportTally } from "./report-tally.ts"
import { recordsRemoved } from "./records-removed.ts"
import { changesSince } from "./report-changes.ts"

// One collator each, made once: `localeCompare` with a locale and options builds one per call (a
// warm 50k rerun spent 4.6 % of its time there sorting the flagged rows). Made at the first report,
// not at start-up: a process's first Intl object costs ~9 ms (ICU's data), and most runs write none.
let collators:
  { readonly numericOrder: Intl.Collator["compare"]; readonly keyOrder: Intl.Collator["compare"] } | undefined
const orders = () =>
  (collators ??= {
    numericOrder: new Intl.Collator("en", { numeric: true }).compare,
    keyOrder: new Intl.Collator().compare
  })

const isTally = (from: Source | ReportTally): from is ReportTally => "_tag" in from && from._tag === "ReportTally"

export class ReportError extends Data.TaggedError("ReportError")<{ readonly detail: string }> {
  override get message() {
    return this.detail
  }
}

export interface ReportOptions {
  /** Characters of text in an excerpt; 0 leaves text out of the report. */
  readonly excerpt: number
  /** An input column to break the verdicts down by. */
  readonly breakdown?: string | undefined
  /** Runs in the trend (this one included). */
  readonly trendRuns: number
  /** The moderation columns (the moderate stage's prefix). */
  readonly moderationPrefix: string
  /** The input columns whose text the excerpt shows. */
  readonly textColumns: ReadonlyArray<string>
  /** Every translate stage's warnings column. */
  readonly warningsColumns: ReadonlyArray<string>
  /** Most flagged records listed (the CSV and JSON say how many more there were). */
  readonly maxListed: number
}

export const defaultReportOptions: ReportOptions = {
  excerpt: 80,
  trendRuns: 7,
  moderationPrefix: "moderation_",
  textColumns: [],
  warningsColumns: ["translate_warnings"],
  maxListed: 10_000
}

type Flagged = ModerationSection["flagged"][number]
type Mutable<T> = { -readonly [K in keyof T]: T[K] }

interface Outcome {
  readonly ordinal: number
  readonly record: StoredRecord
  readonly fields?: Readonly<Record<string, unknown>> | undefined
}

/** Every outcome of a run with its input fields (input given) or without (ledger only). */
const outcomes = (
  ledger: LedgerService,
  runId: number,
  input: Source | undefined
): Stream.Stream<Outcome, SourceError> => {
  if (input === undefined) {
    return Stream.paginateChunkEffect(0, (from) =>
      Effect.map(
        ledger.records(runId, from, 2000),
        (page) =>
          [
            Chunk.fromIterable(page.map((r): Outcome => ({ ordinal: r.ordinal, record: r }))),
            page.length < 2000 ? Option.none<number>() : Option.some(page[page.length - 1]!.ordinal + 1)
          ] as const
      )
    )
  }
  const lookup = outcomeReader(ledger, runId)
  return input.items().pipe(
    Stream.filterMap((item) => (item._tag === "Record" ? Option.some(item) : Option.none())),
    Stream.mapEffect((item) =>
      Effect.map(
        lookup(item.ordinal),
        Option.map((record): Outcome => ({ ordinal: item.ordinal, record, fields: item.fields }))
      )
    ),
    Stream.filterMap((o) => o)
  )
}

/**
 * A trend run's verdict counts without a query where they are known: this run's from its tally, a
 * finished run's the counts it saved when it finished (retention may have removed its records since).
 * Only a run that saved none (finished before runs kept them) is counted over its records.
 */
const trendCounts = (
  ledger: LedgerService,
  r: Run,
  thisRun: number,
  tallied: ReportTally,
  verdictColumn: string
): Effect.Effect<ReadonlyArray<{ readonly value: string | null; readonly n: number }>> => {
  if (r.id === thisRun) {
    const rows = [...tallied.verdicts].map(([value, n]) => ({ value, n }))
    const unjudged = tallied.done() - rows.reduce((n, x) => n + x.n, 0)
    return Effect.succeed(unjudged > 0 ? [...rows, { value: null, n: unjudged }] : rows)
  }
  const stored = Object.entries(r.stats.verdicts).map(([value, n]) => ({ value, n }))
  if (stored.length > 0) return Effect.succeed(stored)
  return ledger.countByColumn(r.id, verdictColumn)
}

/**
 * `from`: the tally the run's output fed as it wrote each row (no read here), else the input
 * (read beside the ledger's outcomes when it is still the file the run read), else the ledger alone.
 */
export const buildReport = (run: Run, options: ReportOptions, from: Source | ReportTally | undefined) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const verdictColumn = `${options.moderationPrefix}verdict`
    const categoriesColumn = `${options.moderationPrefix}categories`

    const fed = from !== undefined && isTally(from) ? from : undefined
    const input = fed === undefined ? (from as Source | undefined) : undefined
    const tallied = fed ?? makeReportTally(options, input !== undefined)
    if (fed === undefined)
      yield* outcomes(ledger, run.id, input).pipe(
        Stream.runForEach((o) => Effect.sync(() => tallied.add(o.record, o.fields)))
      )
    const { verdicts, categories, pairs, breakdown, failures, flagged, warnings } = tallied
    const chunked = tallied.chunked()
    const done = tallied.done()
    const failed = tallied.failed()
    const moderated = tallied.moderated()

    const harmful = verdicts.get("harmful") ?? 0
    const categoryRows: Array<Mutable<ModerationSection["categories"][number]>> = CategoryCodes.filter((c) =>
      categories.has(c)
    ).map((code) => ({
      code,
      name: Categories[code].name,
      gloss: Categories[code].gloss,
      count: categories.get(code)!,
      share: harmful > 0 ? categories.get(code)! / harmful : 0
    }))
    // Codes the service answered that the spec does not list: reported as they are.
    for (const [code, count] of categories) {
      if (!isCategoryCode(code))
        categoryRows.push({
          code,
          name: "(not in the spec)",
          gloss: "",
          count,
          share: harmful > 0 ? count / harmful : 0
        })
    }
    const { numericOrder, keyOrder } = orders()
    const byCategory = (a: Flagged, b: Flagged) =>
      numericOrder(a.categories[0] ?? "~", b.categories[0] ?? "~") || keyOrder(a.key, b.key)

    let moderation: ModerationSection | undefined
    if (moderated > 0) {
      const history = (yield* ledger.runs(run.job, 1000)).filter(
        (r) => r.id <= run.id && (r.status === "finished" || r.id === run.id)
      )
      const previous = history.find((r) => r.id < run.id)
      const changes =
        previous === undefined
          ? undefined
          : yield* changesSince(
              ledger,
              previous.id,
              run.id,
              flagged,
              { verdict: verdictColumn, categories: categoriesColumn },
              byCategory,
              numericOrder
            )
      const trend = yield* Effect.forEach(history.slice(0, options.trendRuns).reverse(), (r) =>
        Effect.map(trendCounts(ledger, r, run.id, tallied, verdictColumn), (rows) => ({
          runId: r.id,
          startedAt: r.startedAt,
          records: rows.reduce((n, x) => n + x.n, 0),
          harmful: rows.find((x) => x.value === "harmful")?.n ?? 0
        }))
      )
      moderation = {
        safe: verdicts.get("safe") ?? 0,
        harmful,
        unparsed: [...verdicts]
          .filter(([v]) => v !== "safe" && v !== "harmful" && v !== "empty")
          .reduce((n, [, c]) => n + c, 0),
        empty: verdicts.get("empty") ?? 0,
        categories: categoryRows,
        cooccurring: [...pairs].sort((a, b) => b[1] - a[1]).map(([codes, count]) => ({ codes, count })),
        ...(options.breakdown !== undefined && tallied.withInput
          ? {
              breakdown: {
                column: options.breakdown,
                rows: [...breakdown]
                  .sort((a, b) => b[1].records - a[1].records)
                  .map(([value, b]) => ({ value, records: b.records, harmful: b.harmful }))
              }
            }
          : {}),
        flagged: flagged.sort(byCategory),
        ...(changes ? { changes } : {}),
        trend
      }
    }

    const stats = run.stats
    // Retention removed the run's records: its saved counts, said to be so.
    const removed = yield* recordsRemoved(run)
    const report: RunReport = {
      job: run.job,
      runId: run.id,
      status: run.status,
      startedAt: run.startedAt,
      finishedAt: run.finishedAt,
      durationMs: run.finishedAt !== null ? run.finishedAt - run.startedAt : null,
      service: run.service,
      inputAvailable: tallied.withInput,
      records: {
        ...(removed
          ? { total: stats.done + stats.failed + stats.readRejects, done: stats.done, failed: stats.failed }
          : { total: done + failed + stats.readRejects, done, failed }),
        unreadable: stats.readRejects,
        ...(stats.readRejectsNotUtf8 > 0 ? { notUtf8: stats.readRejectsNotUtf8 } : {})
      },
      ...(removed ? { recordsRemoved: true as const } : {}),
      failures: [...failures.values()].sort((a, b) => b.count - a.count),
      requests: stats.requests,
      cacheHits: stats.cacheHits,
      tokens: stats.tokens,
      retries: stats.retries,
      rateLimited: stats.rateLimited,
      ...(Object.keys(stats.rates).length > 0 ? { rates: stats.rates } : {}),
      stageCounters: stats.stages,
      ...(moderation ? { moderation } : {}),
      ...(warnings.length > 0 || chunked.length > 0 ? { translation: { warnings, chunked } } : {})
    }
    return report
  })
