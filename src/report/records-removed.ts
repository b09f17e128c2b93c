/**
 * Whether retention (`retention.runs`, `svc-batch gc`) removed a run's per-record outcomes: the run
 * row keeps its statistics, so a run that finished records but has none left in the ledger lost
 * them to retention — its report, `status` and `runs` say so instead of counting 0 records.
 */
import { Effect } from "effect"
import { Ledger, type Run } from "../ledger/ledger.ts"

/** One indexed lookup (the run's first record), not a count. A running run is never said to have lost them. */
export const recordsRemoved = (run: Run) =>
  run.status === "running" || run.stats.done + run.stats.failed === 0
    ? Effect.succeed(false)
    : Effect.flatMap(Ledger, (ledger) => Effect.map(ledger.records(run.id, 0, 1), (page) => page.length === 0))

/** The sentence a report or a status line gives such a run. */
export const recordsRemovedNote = (runId: number) =>
  `run ${runId}'s records were removed by retention (retention.runs / svc-batch gc): the counts are the run's saved statistics; flagged records, categories and failures are gone`
