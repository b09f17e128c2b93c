/** The end of `run`/`retry` in words: the headline, the files written or how to resume; and its outcome. */
import { Console, Effect } from "effect"
import { summaryLine } from "../../engine/progress.ts"
import { encodingHint } from "../../io/encoding.ts"
import { discoveredRateLines, type RunStats } from "../../engine/run-stats.ts"
import type { RunSummary } from "../../engine/runner.ts"
import { ledgerName, type ResolvedJob } from "../../job/resolve-job.ts"
import { Outcome } from "../outcome.ts"

/**
 * `resume`: the command line that resumes the run, when it is not the same command — a `--new-run`
 * invocation's (run again as it is, it would start yet another run).
 */
export const presentRunEnd = (
  summary: RunSummary,
  stats: RunStats,
  job: ResolvedJob,
  maxRequests: number | undefined,
  resume?: string
) =>
  Effect.gen(function* () {
    const again = (what: string) =>
      resume === undefined
        ? `run the same command again to ${what} run ${summary.runId}`
        : `${what} run ${summary.runId} with the same command without --new-run: ${resume}`
    const notProcessed = summary.notProcessed ?? 0
    const headline = `run ${summary.runId}${summary.resumed ? " (resumed)" : ""} ${summary.status}: ${summary.done} done, ${summary.failed} failed, ${summary.readRejects} unreadable${notProcessed > 0 ? `, ${notProcessed} not processed` : ""}`
    // Rows read, not only records: a run whose rows were mostly unreadable must not look complete.
    const s = stats.snapshot()
    const rows =
      summary.readRejects > 0
        ? `${summary.done + summary.failed + summary.readRejects} rows read, ${summary.readRejects} unreadable; `
        : ""
    yield* Console.log(`${headline}\n  ${rows}${summaryLine(stats, { cache: job.cache !== "off" })}`)
    const hint = encodingHint(s.readRejects, s.readRejectsNotUtf8)
    if (hint !== undefined) yield* Console.log(`  note    ${hint}`)
    for (const line of discoveredRateLines(s.rates)) yield* Console.log(`  ${line}`)
    switch (summary.status) {
      case "finished": {
        yield* Console.log(
          `  output  ${summary.outputPath}${summary.outputKept === undefined ? "" : ` (unchanged: kept as run ${summary.outputKept} wrote it, with its rejects and store)`}\n  rejects ${summary.rejectsPath}\n  ledger  ${ledgerName(job)}`
        )
        if (summary.store !== undefined && job.store !== undefined) {
          const s = summary.store
          yield* Console.log(
            `  store   ${job.store.path} (table ${job.store.table}: ${s.written} records written, ${s.unchanged} unchanged, ${s.deleted} deleted)`
          )
        }
        if (summary.keptPrevious !== undefined) {
          yield* Console.error(
            `svc-batch: every record failed: the previous output ${summary.keptPrevious} is kept with its rejects ${job.rejects}; this run's are ${summary.outputPath} and ${summary.rejectsPath}`
          )
        }
        const dup = summary.duplicates
        if (dup !== undefined && dup.records > 0) {
          yield* Console.log(
            `  ids     ${dup.records} record(s) repeat the id of an earlier record (${dup.ids} id(s), e.g. ${dup.examples.map((e) => JSON.stringify(e)).join(", ")})${dup.rejected > 0 ? `; ${dup.rejected} rejected: the store keeps the first record with an id` : ""}`
          )
        }
        // 0 only when every row of the input is in the output: a row in the rejects file, failed or unreadable, is 1.
        return Outcome.Finished({
          rejects: summary.failed + summary.readRejects + notProcessed + (dup?.rejected ?? 0) > 0
        })
      }
      case "interrupted":
        if (summary.budgetSpent) {
          yield* Console.log(
            `  stopped: the budget of ${maxRequests} requests (--max-requests) is spent; ${again("continue")} (ledger ${ledgerName(job)})`
          )
          return Outcome.BudgetSpent()
        }
        yield* Console.log(`  interrupted: ${again("resume")} (ledger ${ledgerName(job)})`)
        return Outcome.Interrupted()
      case "aborted":
        yield* Console.error(`svc-batch: aborted: ${summary.abortReason}`)
        yield* Console.log(`  fix the cause, then ${again("resume")} (ledger ${ledgerName(job)})`)
        return Outcome.Aborted()
    }
  })
