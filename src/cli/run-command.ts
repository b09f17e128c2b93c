/**
 * `svc-batch run <job-file>`: runs a job (embedded emulator unless SVC_BASE_URL is set), resuming
 * its last unfinished run. Layers are assembled here: TextService (+ endpoint), Ledger.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Layer, Option } from "effect"
import { pipelineForJob } from "../../pipelines/index.ts"
import { CacheMode, InputFormat, OptionError } from "../job/job-file.ts"
import { resolveJob } from "../job/resolve-job.ts"
import { rpmFlag } from "../job/rpm.ts"
import { reportProgress, statusLine, summaryLine } from "../engine/progress.ts"
import { defaultRetryPolicy } from "../engine/retry.ts"
import { isResumable } from "../engine/run-lifecycle.ts"
import { discoveredRateLines, RunStats } from "../engine/run-stats.ts"
import { runPipeline } from "../engine/runner.ts"
import { checkReadable, fingerprintInput } from "../io/input-access.ts"
import { SourceError } from "../io/source.ts"
import { Encoding } from "../io/encoding.ts"
import { openSource } from "../io/open-source.ts"
import type { Format } from "../io/source.ts"
import { sinks } from "../io/sinks/index.ts"
import { Ledger } from "../ledger/ledger.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { describeEndpoint, originOf, serviceLayer, ServiceEndpoint } from "./endpoint.ts"
import { done, ending, Outcome } from "./outcome.ts"
import { announceReport } from "./present/report-lines.ts"
import { describeGc } from "./present/gc-lines.ts"
import { planOf } from "./plan-command.ts"
import { planLines } from "./present/plan-table.ts"
import { buildReport } from "../report/build-report.ts"
import { reportOptionsFor } from "../report/report-options.ts"
import { exceeded, reportFiles, writeReport } from "../report/write-report.ts"
import { gracefulStop } from "./shutdown.ts"
import { logFormat } from "./log-format.ts"
import { lockJob } from "./job-lock.ts"
import { stateOption } from "./state-option.ts"
import { checkJob } from "../job/job-checks.ts"


const formatOption = (name: string, what: string) =>
  Options.choice(name, InputFormat.literals).pipe(Options.withDescription(what), Options.optional)

const options = {
  job: jobFileArg.pipe(Args.withDescription("the job file (YAML or JSON)")),
  input: Options.file("input").pipe(Options.withDescription("input file (overrides the job's)"), Options.optional),
  inputFormat: formatOption("input-format", "input format (default: from the extension)"),
  inputEncoding: Options.choice("input-encoding", Encoding.literals).pipe(
    Options.withDescription("text encoding of a CSV or JSONL input (default: the job's input.encoding, else utf-8)"),
    Options.optional
  ),
  output: Options.file("output").pipe(Options.withDescription("output file (overrides the job's)"), Options.optional),
  outputFormat: Options.choice("output-format", Object.keys(sinks)).pipe(
    Options.withDescription("output sink (default: from the extension, else the input's format)"),
    Options.optional
  ),
  rejects: Options.file("rejects").pipe(Options.withDescription("rejects file (JSON Lines)"), Options.optional),
  state: stateOption,
  rpm: Options.text("rpm").pipe(Options.withDescription("requests per minute: N, or model=N,... (* for the rest)"), Options.optional),
  concurrency: Options.integer("concurrency").pipe(Options.withDescription("most requests in flight per model"), Options.optional),
  records: Options.integer("records").pipe(Options.withDescription("records in progress at once"), Options.optional),
  maxAttempts: Options.integer("max-attempts").pipe(Options.withDescription("attempts per request (429s do not count)"), Options.optional),
  // The choices are the job file's (one Schema for both).
  cache: Options.choice("cache", CacheMode.literals).pipe(
    Options.withDescription("answer cache: read-write (default), refresh (re-ask answers older than the run), off"),
    Options.optional
  ),
  retryFailed: Options.boolean("retry-failed").pipe(Options.withDescription("also retry the records that failed")),
  newRun: Options.boolean("new-run").pipe(Options.withDescription("start a new run even if the last one is unfinished (e.g. after switching between the emulator and the service)")),
  graceMs: Options.integer("grace-ms").pipe(Options.withDescription("after a stop, how long requests in flight may finish"), Options.optional),
  maxRequests: Options.integer("max-requests").pipe(
    Options.withDescription("a budget: after N requests the run stops as on Ctrl-C (resumable, exit 6)"),
    Options.optional
  ),
  dryRun: Options.boolean("dry-run").pipe(Options.withDescription("print the plan (svc-batch plan) and send nothing")),
  wait: Options.boolean("wait").pipe(Options.withDescription("when another run of this job is going on, wait for it to finish instead of exiting 7"))
}

/** An argument as a POSIX shell reads it back (a path with spaces stays one argument). */
const shellQuote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)

/** This command line with `--new-run`: what starts afresh, quoted when a resume would mix origins. */
const newRunCommand = (argv: ReadonlyArray<string>) => ["svc-batch", ...argv.slice(2), "--new-run"].map(shellQuote).join(" ")

const opt = <A>(o: Option.Option<A>) => Option.getOrUndefined(o)

const rowEstimate = (path: string, format: Format, lines: number) =>
  format === "parquet"
    ? Effect.tryPromise({
        try: async () => {
          // hyparquet is loaded only for a Parquet input (start-up of every other job).
          const { parquetMetadataAsync, asyncBufferFromFile } = await import("hyparquet")
          return Number((await parquetMetadataAsync(await asyncBufferFromFile(path))).num_rows)
        },
        catch: (e) => new SourceError({ path, detail: `cannot read Parquet: ${(e as Error).message}` })
      })
    : Effect.succeed(Math.max(0, format === "csv" ? lines - 1 : lines))

/** What the `run` command's handler takes; `retry` gives the same with `reopen`. */
export type RunInput = Command.Command.ParseConfig<typeof options> & { readonly reopen?: number | undefined }

export const executeRun = (o: RunInput) =>
  Effect.scoped(
    Effect.gen(function* () {
      const rpm = yield* Option.match(o.rpm, { onNone: () => Effect.succeed(undefined), onSome: rpmFlag })
      const job = yield* resolveJob(o.job, {
        input: opt(o.input),
        inputFormat: opt(o.inputFormat),
        inputEncoding: opt(o.inputEncoding),
        output: opt(o.output),
        outputFormat: opt(o.outputFormat),
        rejects: opt(o.rejects),
        state: opt(o.state),
        rpm,
        concurrency: opt(o.concurrency),
        records: opt(o.records),
        maxAttempts: opt(o.maxAttempts),
        graceMs: opt(o.graceMs),
        cache: opt(o.cache)
      })
      const pipeline = yield* pipelineForJob(o.job, job.job)
      // A moderation run keeps its verdict counts (the trend of later reports), counted by the output pass.
      const verdictColumn = pipeline.stages.some((s) => s.name === "moderate") ? `${reportOptionsFor(pipeline, job.job.report).moderationPrefix}verdict` : undefined
      const maxRequests = opt(o.maxRequests)
      if (maxRequests !== undefined && maxRequests < 1) return yield* new OptionError({ flag: "--max-requests", detail: `expected a whole number of 1 or more, got ${maxRequests}` })
      if (o.dryRun) {
        // The plan checks the job as plan, check and run do.
        const { plan, origin } = yield* planOf(o.job, job)
        yield* Console.log(planLines(job, plan, origin).join("\n"))
        return done
      }
      // As plan and check: the same checks, the same refusals (exit 2, nothing sent).
      yield* checkJob(job, pipeline)
      const input = job.input.path
      const inputFormat = job.input.format
      const state = job.state

      const stats = new RunStats()
      const stop = yield* gracefulStop
      // After a stop the line says so (and shows no ETA) until the records in flight are done.
      yield* Effect.forkScoped(Effect.zipRight(stop, Effect.sync(() => stats.progress().phase === "processing" && stats.setPhase("stopping"))))

      // A line on stdout while the progress line may be drawn on the same terminal: cleared first.
      const say = (text: string) => Effect.zipRight(Effect.sync(() => statusLine.clear()), Console.log(text))
      const work = (fingerprint: string) => Effect.gen(function* () {
        const endpoint = yield* ServiceEndpoint
        const ledger = yield* Ledger
        const estimate = stats.snapshot()
        yield* say(`svc-batch run ${job.name} (pipeline ${pipeline.name}: ${pipeline.stages.map((s) => s.name).join(" → ")}) — ${describeEndpoint(endpoint)}`)
        yield* say(`  input   ${input} (${inputFormat}, ${estimate.totalIsEstimate ? "~" : ""}${estimate.total} records)`)
        if (job.formerDefaultState !== undefined) {
          const { path, moveTo } = job.formerDefaultState
          yield* say(`  note    using the ledger at its former default place ${path}; move it (with any -wal/-shm beside it, while no run goes) to ${moveTo}, or set state: in the job, so that another --output finds it`)
        }
        const last = yield* ledger.lastRun(job.name)
        if (Option.isSome(last) && last.value.status !== "finished" && !isResumable(last.value, fingerprint)) {
          yield* say(`  note    the last run (${last.value.id}, ${last.value.status}) read a different input; starting a new run (answers are still reused)`)
        }
        return yield* runPipeline(
          {
            job: job.name,
            service: originOf(endpoint),
            baseUrl: endpoint.emulated ? undefined : endpoint.baseUrl,
            newRun: o.newRun,
            reopen: o.reopen,
            // `retry` reopens a given run: no --new-run there.
            newRunCommand: o.reopen === undefined ? newRunCommand(process.argv) : undefined,
            pipeline,
            source: openSource(input, inputFormat, job.input.encoding, job.input),
            fingerprint,
            output: job.output,
            rejectsPath: job.rejects,
            store: job.store,
            idField: job.input.id,
            countColumn: verdictColumn,
            cache: job.cache,
            retryFailed: o.retryFailed,
            recordConcurrency: job.limits.records,
            rpm: job.limits.rpm,
            maxConcurrency: job.limits.concurrency,
            retry: { ...defaultRetryPolicy, maxAttempts: job.limits.maxAttempts },
            stop,
            maxRequests,
            grace: Duration.millis(job.limits.graceMs)
          },
          stats
        ).pipe(Effect.scoped)
      })

      // One invocation of the job at a time (held until this command ends: run, output, report, retention).
      // A stop while waiting for the lock (--wait) ends the command: nothing was started.
      const locked = yield* Effect.raceFirst(Effect.as(lockJob(job.name, state, { wait: o.wait }), true), Effect.as(stop, false))
      if (!locked) {
        yield* Console.log(`stopped while waiting for the running invocation of job ${job.name}; nothing was sent`)
        return Outcome.Interrupted()
      }

      // The progress display lives from the first read of the input (fingerprint, count: the
      // reading phase) to the end of the run, so it is gone before the summary.
      const summary = yield* Effect.scoped(
        Effect.gen(function* () {
          yield* reportProgress(stats, { tty: process.stderr.isTTY === true, cache: job.cache !== "off" })
          yield* checkReadable(input)
          const { fingerprint, lines } = yield* fingerprintInput(input, { quoted: inputFormat === "csv", skipBlank: inputFormat === "jsonl" })
          stats.setTotal(yield* rowEstimate(input, inputFormat, lines), inputFormat === "csv")
          return yield* work(fingerprint).pipe(
            Effect.provide(Layer.merge(serviceLayer(job.job.emulator ?? {}, { serviceRequired: job.job.service === "required" }), Ledger.layer({ path: state })))
          )
        })
      ).pipe(Effect.annotateLogs({ job: job.name }))
      // The run's end as a log event too (for `--log-format json` collectors).
      yield* Effect.logInfo(`run ${summary.runId} ${summary.status}`).pipe(
        Effect.annotateLogs({ event: "run-end", job: job.name, run: summary.runId, status: summary.status, counters: stats.snapshot() }),
        Effect.when(() => logFormat.format === "json")
      )
      const notProcessed = summary.notProcessed ?? 0
      const headline = `run ${summary.runId}${summary.resumed ? " (resumed)" : ""} ${summary.status}: ${summary.done} done, ${summary.failed} failed, ${summary.readRejects} unreadable${notProcessed > 0 ? `, ${notProcessed} not processed` : ""}`
      yield* Console.log(`${headline}\n  ${summaryLine(stats, { cache: job.cache !== "off" })}`)
      for (const line of discoveredRateLines(stats.snapshot().rates)) yield* Console.log(`  ${line}`)
      switch (summary.status) {
        case "finished": {
          yield* Console.log(`  output  ${summary.outputPath}\n  rejects ${summary.rejectsPath}\n  ledger  ${state}`)
          if (summary.store !== undefined && job.store !== undefined) {
            const s = summary.store
            yield* Console.log(`  store   ${job.store.path} (table ${job.store.table}: ${s.written} records written, ${s.unchanged} unchanged, ${s.deleted} deleted)`)
          }
          if (summary.keptPrevious !== undefined) {
            yield* Console.error(`svc-batch: every record failed: the previous output ${summary.keptPrevious} is kept with its rejects ${job.rejects}; this run's are ${summary.outputPath} and ${summary.rejectsPath}`)
          }
          // 0 only when every row of the input is in the output: a row in the rejects file, failed or unreadable, is 1.
          const dup = summary.duplicates
          if (dup !== undefined && dup.records > 0) {
            yield* Console.log(
              `  ids     ${dup.records} record(s) repeat the id of an earlier record (${dup.ids} id(s), e.g. ${dup.examples.map((e) => JSON.stringify(e)).join(", ")})${dup.rejected > 0 ? `; ${dup.rejected} rejected: the store keeps the first record with an id` : ""}`
            )
          }
          let outcome: Outcome = Outcome.Finished({ rejects: summary.failed + summary.readRejects + notProcessed + (dup?.rejected ?? 0) > 0 })
          if (job.job.report.enabled) {
            // Built from the ledger and the input this run just read: no request.
            const report = yield* Effect.gen(function* () {
              const ledger = yield* Ledger
              const run = yield* ledger.run(summary.runId)
              return yield* buildReport(Option.getOrThrow(run), reportOptionsFor(pipeline, job.job.report), openSource(input, inputFormat, job.input.encoding, job.input))
            }).pipe(Effect.provide(Ledger.layer({ path: state })))
            const files = reportFiles(summary.outputPath ?? job.output.path)
            yield* writeReport(report, files)
            const alerts = job.job.report.fail ? exceeded(report, job.job.report.fail) : []
            if (yield* announceReport(report, files, alerts)) outcome = Outcome.ThresholdsExceeded()
          }
          // Retention, once the report has compared this run with the previous one; the run keeps
          // its verdict counts for the trend of later reports. The next run reuses the pages older
          // runs' records leave, so only free space beyond that is compacted.
          const gc = yield* Effect.gen(function* () {
            const ledger = yield* Ledger
            if (verdictColumn !== undefined) {
              const counts = summary.columnCounts ?? (yield* ledger.countByColumn(summary.runId, verdictColumn))
              const run = yield* ledger.run(summary.runId)
              if (Option.isSome(run)) {
                yield* ledger.setRun(summary.runId, "finished", { ...run.value.stats, verdicts: Object.fromEntries(counts.map((c) => [c.value ?? "none", c.n])) })
              }
            }
            return yield* ledger.gc(job.name, job.job.retention.runs, Date.now() - job.job.retention.answerDays * 86_400_000, { nextRunReuses: true })
          }).pipe(Effect.provide(Ledger.layer({ path: state })))
          if (gc.records > 0 || gc.answers > 0) yield* Console.log(`  ledger  retention: ${describeGc(gc)}`)
          return outcome
        }
        case "interrupted":
          if (summary.budgetSpent) {
            yield* Console.log(`  stopped: the budget of ${maxRequests} requests (--max-requests) is spent; run again to continue (ledger ${state})`)
            return Outcome.BudgetSpent()
          }
          yield* Console.log(`  interrupted: run the same command again to resume (ledger ${state})`)
          return Outcome.Interrupted()
        case "aborted":
          yield* Console.error(`svc-batch: aborted: ${summary.abortReason}`)
          yield* Console.log(`  fix the cause and run the same command again to resume (ledger ${state})`)
          return Outcome.Aborted()
      }
    })
  )

export const runCommand = Command.make("run", options, ending(executeRun)).pipe(
  Command.withDescription("Run a job: read the input, run the pipeline's stages, write the enriched output and rejects. Example: svc-batch run jobs/nightly.yaml --max-requests 50000")
)
