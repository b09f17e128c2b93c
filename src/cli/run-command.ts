/**
 * `svc-batch run <job-file>`: runs a job (embedded emulator unless SVC_BASE_URL is set), resuming
 * its last unfinished run. Layers are assembled here: TextService (+ endpoint), Ledger.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Either, Layer, Option } from "effect"
import { existsSync } from "node:fs"
import { basename, dirname, extname, join, resolve } from "node:path"
import { pipelines } from "../../pipelines/index.ts"
import { makeCounters } from "../engine/counters.ts"
import { jobPath, loadJobFile } from "../engine/job.ts"
import { buildPipeline } from "../engine/pipeline-registry.ts"
import { reportProgress, summaryLine } from "../engine/progress.ts"
import { defaultRetryPolicy } from "../engine/retry.ts"
import { runPipeline } from "../engine/runner.ts"
import { fingerprintFile } from "../io/fingerprint.ts"
import { openSource } from "../io/open-source.ts"
import { type Format, formatOf } from "../io/source.ts"
import { Ledger } from "../ledger/ledger.ts"
import { parseRpm } from "./emulator-command.ts"
import { ConfigError, describeEndpoint, serviceLayer, ServiceEndpoint } from "./endpoint.ts"
import { ExitCode } from "./exit-codes.ts"
import { gracefulStop } from "./shutdown.ts"
import { parquetMetadataAsync, asyncBufferFromFile } from "hyparquet"

const formatOption = (name: string, what: string) =>
  Options.choice(name, ["csv", "jsonl", "parquet"] as const).pipe(Options.withDescription(what), Options.optional)

const options = {
  job: Args.file({ name: "job-file", exists: "yes" }).pipe(Args.withDescription("the job file (YAML or JSON)")),
  input: Options.file("input").pipe(Options.withDescription("input file (overrides the job's)"), Options.optional),
  inputFormat: formatOption("input-format", "input format (default: from the extension)"),
  output: Options.file("output").pipe(Options.withDescription("output file (overrides the job's)"), Options.optional),
  outputFormat: formatOption("output-format", "output format (default: from the extension, else the input's)"),
  rejects: Options.file("rejects").pipe(Options.withDescription("rejects file (JSON Lines)"), Options.optional),
  state: Options.file("state").pipe(Options.withDescription("ledger file (SQLite)"), Options.optional),
  rpm: Options.text("rpm").pipe(Options.withDescription("requests per minute: N, or model=N,... (* for the rest)"), Options.optional),
  concurrency: Options.integer("concurrency").pipe(Options.withDescription("most requests in flight per model"), Options.optional),
  records: Options.integer("records").pipe(Options.withDescription("records in progress at once"), Options.optional),
  maxAttempts: Options.integer("max-attempts").pipe(Options.withDescription("attempts per request (429s do not count)"), Options.optional),
  cache: Options.choice("cache", ["read-write", "refresh", "off"] as const).pipe(
    Options.withDescription("answer cache: read-write (default), refresh (re-ask answers older than the run), off"),
    Options.optional
  ),
  retryFailed: Options.boolean("retry-failed").pipe(Options.withDescription("also retry the records that failed")),
  graceMs: Options.integer("grace-ms").pipe(Options.withDescription("after a stop, how long requests in flight may finish"), Options.optional)
}

const fail = (detail: string) => Effect.fail(new ConfigError({ detail }))
const opt = <A>(o: Option.Option<A>) => Option.getOrUndefined(o)

const rowEstimate = (path: string, format: Format, lines: number) =>
  format === "parquet"
    ? Effect.promise(async () => Number((await parquetMetadataAsync(await asyncBufferFromFile(path))).num_rows))
    : Effect.succeed(Math.max(0, format === "csv" ? lines - 1 : lines))

export const runCommand = Command.make("run", options, (o) =>
  Effect.scoped(
    Effect.gen(function* () {
      const loaded = loadJobFile(o.job)
      if (Either.isLeft(loaded)) return yield* Effect.fail(loaded.left)
      const { job, dir } = loaded.right
      const definition = pipelines[job.pipeline]
      if (definition === undefined) {
        return yield* fail(`${o.job}: pipeline: unknown pipeline ${JSON.stringify(job.pipeline)} (known: ${Object.keys(pipelines).join(", ")})`)
      }
      const pipeline = buildPipeline(definition, job.fields)
      if (typeof pipeline === "string") return yield* fail(`${o.job}: ${pipeline}`)

      const input = Option.match(o.input, { onNone: () => jobPath(dir, job.input.path), onSome: (p) => resolve(p) })
      if (!existsSync(input)) return yield* fail(`input file not found: ${input}`)
      const inputFormat = opt(o.inputFormat) ?? formatOf(input, job.input.format)
      if (inputFormat === undefined) return yield* fail(`${input}: cannot tell the format from the extension; set input.format or --input-format`)
      const output = Option.match(o.output, { onNone: () => jobPath(dir, job.output.path), onSome: (p) => resolve(p) })
      const outputFormat = opt(o.outputFormat) ?? formatOf(output, job.output.format) ?? inputFormat
      const stem = join(dirname(output), basename(output, extname(output)))
      const rejects = Option.match(o.rejects, {
        onNone: () => (job.output.rejects ? jobPath(dir, job.output.rejects) : `${stem}.rejects.jsonl`),
        onSome: (p) => resolve(p)
      })
      const state = Option.match(o.state, {
        onNone: () => (job.state ? jobPath(dir, job.state) : join(dirname(output), `${job.name}.ledger.sqlite`)),
        onSome: (p) => resolve(p)
      })
      const rpm = yield* Option.match(o.rpm, {
        onNone: () => Effect.succeed(job.limits?.rpm ?? {}),
        onSome: (text) =>
          Effect.try({
            try: () => {
              const parsed = parseRpm(text)
              return typeof parsed === "number" ? { "*": parsed } : parsed
            },
            catch: (e) => new ConfigError({ detail: (e as Error).message })
          })
      })

      const counters = makeCounters()
      const { fingerprint, lines } = yield* Effect.promise(() => fingerprintFile(input))
      counters.total = yield* rowEstimate(input, inputFormat, lines)
      counters.totalIsEstimate = inputFormat === "csv"
      const stop = yield* gracefulStop

      const work = Effect.gen(function* () {
        const endpoint = yield* ServiceEndpoint
        const ledger = yield* Ledger
        yield* Console.log(`svc-batch run ${job.name} (pipeline ${definition.name}) — ${describeEndpoint(endpoint)}`)
        yield* Console.log(`  input   ${input} (${inputFormat}, ${counters.totalIsEstimate ? "~" : ""}${counters.total} records)`)
        const last = ledger.lastRun(job.name)
        if (last && last.status !== "finished" && last.fingerprint !== fingerprint) {
          yield* Console.log(`  note    the last run (${last.id}, ${last.status}) read a different input; starting a new run (answers are still reused)`)
        }
        // The progress display lives exactly as long as the run, so it is gone before the summary.
        return yield* Effect.zipRight(
          reportProgress(pipeline.stages.map((s) => s.name).join("→"), counters, process.stderr.isTTY === true),
          runPipeline(
          {
            job: job.name,
            pipeline,
            source: openSource(input, inputFormat),
            fingerprint,
            output: { path: output, format: outputFormat },
            rejectsPath: rejects,
            idField: job.input.id,
            cache: opt(o.cache) ?? job.cache ?? "read-write",
            retryFailed: o.retryFailed,
            recordConcurrency: opt(o.records) ?? job.limits?.records ?? 256,
            rpm,
            maxConcurrency: opt(o.concurrency) ?? job.limits?.concurrency ?? 32,
            retry: { ...defaultRetryPolicy, maxAttempts: opt(o.maxAttempts) ?? job.limits?.maxAttempts ?? defaultRetryPolicy.maxAttempts },
            stop,
            grace: Duration.millis(opt(o.graceMs) ?? job.limits?.graceMs ?? 10_000)
          },
          counters
        )
        ).pipe(Effect.scoped)
      })

      const summary = yield* work.pipe(
        Effect.provide(Layer.merge(serviceLayer(job.emulator ?? {}), Ledger.layer({ path: state })))
      )
      const headline = `run ${summary.runId}${summary.resumed ? " (resumed)" : ""} ${summary.status}: ${summary.done} done, ${summary.failed} failed, ${summary.readRejects} unreadable`
      yield* Console.log(`${headline}\n  ${summaryLine(counters)}`)
      switch (summary.status) {
        case "finished":
          yield* Console.log(`  output  ${summary.outputPath}\n  rejects ${summary.rejectsPath}\n  ledger  ${state}`)
          process.exitCode = summary.failed > 0 ? ExitCode.failedRecords : ExitCode.ok
          break
        case "interrupted":
          yield* Console.log(`  interrupted: run the same command again to resume (ledger ${state})`)
          process.exitCode = ExitCode.interrupted
          break
        case "aborted":
          yield* Console.error(`svc-batch: aborted: ${summary.abortReason}`)
          yield* Console.log(`  fix the cause and run the same command again to resume (ledger ${state})`)
          process.exitCode = ExitCode.aborted
      }
    })
  )
).pipe(Command.withDescription("Run a job: read the input, run the pipeline's stages, write the enriched output and rejects"))
