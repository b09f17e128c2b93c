/**
 * `svc-batch retry <job-file> [--run N]`: asks the failed records of a run again — a finished run
 * too (`run --retry-failed` only resumes an unfinished one) — keeping its done records, and
 * rewrites its outputs (dataset, rejects, report, store) atomically. The input must be the file the
 * run read.
 */
import { Args, Command, Options } from "@effect/cli"
import { Option } from "effect"
import { stateOption } from "./state-option.ts"
import { waitOption } from "./wait-option.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { executeRun } from "./run-command.ts"
import { ending } from "./outcome.ts"

export const retryCommand = Command.make(
  "retry",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file")),
    state: stateOption,
    run: Options.integer("run").pipe(Options.withDescription("the run (default: the job's last)"), Options.optional),
    maxRequests: Options.integer("max-requests").pipe(
      Options.withDescription("a budget of requests, as for run"),
      Options.optional
    ),
    wait: waitOption
  },
  ending((o) => {
    const none = Option.none()
    // `run`'s path, with the run to reopen: the same context, checks and ledger.
    return executeRun({
      job: o.job,
      input: none,
      inputFormat: none,
      inputEncoding: none,
      output: none,
      outputFormat: none,
      rejects: none,
      state: o.state,
      // Retried on this machine alone (a cluster's run too: its ledger is --ledger's).
      cluster: none,
      noWork: false,
      rpm: none,
      concurrency: none,
      records: none,
      maxAttempts: none,
      cache: none,
      retryFailed: true,
      newRun: false,
      graceMs: none,
      maxRequests: o.maxRequests,
      dryRun: false,
      wait: o.wait,
      retry: { run: o.run }
    })
  })
).pipe(
  Command.withDescription(
    "Ask a run's failed records again (a finished run too) and rewrite its outputs. Example: svc-batch retry jobs/nightly.yaml --run 12"
  )
)
