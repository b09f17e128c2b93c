/** `run`'s flags, and what they override in the job (`retry` gives the same with `retry`). */
import { Args, type Command, Options } from "@effect/cli"
import { Option } from "effect"
import { Encoding } from "../io/encoding.ts"
import { sinks } from "../io/sinks/index.ts"
import { CacheMode, InputFormat, limitDefaults } from "../job/job-file.ts"
import type { JobOverrides } from "../job/resolve-job.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { ledgerOverrides, stateOption } from "./state-option.ts"
import { waitOption } from "./wait-option.ts"

const formatOption = (name: string, what: string) =>
  Options.choice(name, InputFormat.literals).pipe(Options.withDescription(what), Options.optional)

export const options = {
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
  rejects: Options.file("rejects").pipe(
    Options.withDescription(
      "rejects file, JSON Lines (default: the job's output.rejects, else <output stem>.rejects.jsonl beside the output)"
    ),
    Options.optional
  ),
  state: stateOption,
  rpm: Options.text("rpm").pipe(
    Options.withDescription(
      "requests per minute: N, or model=N,... (* for the rest) (default: the job's limits.rpm, else found from 429s)"
    ),
    Options.optional
  ),
  concurrency: Options.integer("concurrency").pipe(
    Options.withDescription(
      `most requests in flight per model (default: the job's limits.concurrency, else ${limitDefaults.concurrency})`
    ),
    Options.optional
  ),
  records: Options.integer("records").pipe(
    Options.withDescription(
      `records in progress at once (default: the job's limits.records, else ${limitDefaults.records})`
    ),
    Options.optional
  ),
  maxAttempts: Options.integer("max-attempts").pipe(
    Options.withDescription(
      `attempts per request, 429s not counted (default: the job's limits.maxAttempts, else ${limitDefaults.maxAttempts})`
    ),
    Options.optional
  ),
  // The choices are the job file's (one Schema for both).
  cache: Options.choice("cache", CacheMode.literals).pipe(
    Options.withDescription("answer cache: read-write (default), refresh (re-ask answers older than the run), off"),
    Options.optional
  ),
  retryFailed: Options.boolean("retry-failed").pipe(Options.withDescription("also retry the records that failed")),
  newRun: Options.boolean("new-run").pipe(
    Options.withDescription(
      "start a new run even if the last one is unfinished (e.g. after switching between the emulator and the service)"
    )
  ),
  graceMs: Options.integer("grace-ms").pipe(
    Options.withDescription(
      `after a stop, how long requests in flight may finish (default: the job's limits.graceMs, else ${limitDefaults.graceMs})`
    ),
    Options.optional
  ),
  maxRequests: Options.integer("max-requests").pipe(
    Options.withDescription(
      "a budget: after N requests the run stops as on Ctrl-C, resumable, exit 6 (default: no budget)"
    ),
    Options.optional
  ),
  cluster: Options.text("cluster").pipe(
    Options.withDescription(
      "coordinate a run over many machines: postgres://user:password@host:5432/db, the shared ledger and queue of work units (default: the job's cluster.url)"
    ),
    Options.optional
  ),
  noWork: Options.boolean("no-work").pipe(
    Options.withDescription("with --cluster: only coordinate, leave the units to the workers")
  ),
  dryRun: Options.boolean("dry-run").pipe(Options.withDescription("print the plan (svc-batch plan) and send nothing")),
  wait: waitOption
}

/** What the `run` command's handler takes; `retry` gives the same with `retry`: the run to reopen (default: the last). */
export type RunInput = Command.Command.ParseConfig<typeof options> & {
  readonly retry?: { readonly run: Option.Option<number> } | undefined
}

const opt = <A>(o: Option.Option<A>) => Option.getOrUndefined(o)

/** The job fields the flags override (`rpm` decoded by the job room's grammar). */
export const overridesOf = (o: RunInput, rpm: Readonly<Record<string, number>> | undefined): JobOverrides => ({
  input: opt(o.input),
  inputFormat: opt(o.inputFormat),
  inputEncoding: opt(o.inputEncoding),
  output: opt(o.output),
  outputFormat: opt(o.outputFormat),
  rejects: opt(o.rejects),
  ...ledgerOverrides(o.state),
  cluster: opt(o.cluster),
  rpm,
  concurrency: opt(o.concurrency),
  records: opt(o.records),
  maxAttempts: opt(o.maxAttempts),
  graceMs: opt(o.graceMs),
  cache: opt(o.cache)
})

/** An argument as a POSIX shell reads it back (a path with spaces stays one argument). */
const shellQuote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)

/** This command line with `--new-run`: what starts afresh, quoted when a resume would mix origins. */
export const newRunCommand = (argv: ReadonlyArray<string>) =>
  ["svc-batch", ...argv.slice(2), "--new-run"].map(shellQuote).join(" ")
