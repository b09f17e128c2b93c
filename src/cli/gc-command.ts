/**
 * `svc-batch gc <job-file> [--keep-runs N] [--answer-days D] [--json] [--wait]`: applies retention
 * to the job's ledger now (a finished run applies the job's `retention:` by itself). It holds the
 * job's lock, as run and retry do: a run starting meanwhile would ask again the answers it deletes.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option, Ref } from "effect"
import { Ledger } from "../ledger/ledger.ts"
import { JobContext } from "../job/job-context.ts"
import { describeGc } from "./present/gc-lines.ts"
import { decodeRetentionOverrides } from "../job/job-file.ts"
import { ConfigError } from "./endpoint.ts"
import { pastRunsContext, stateOption } from "./state-option.ts"
import { waitOption } from "./wait-option.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { whileLocked } from "./job-lock.ts"
import { CommandOutcome, done, ending, Outcome } from "./outcome.ts"
import { viewOf } from "./run-view.ts"

const DAY = 86_400_000

/** Retention on the context's job, under its lock: `flags` over the job's `retention`. */
const collectGarbage = (
  o: { readonly wait: boolean; readonly json: boolean },
  flags: { readonly runs?: number | undefined; readonly answerDays?: number | undefined }
) =>
  Effect.gen(function* () {
    const { job } = yield* JobContext
    const keep = flags.runs ?? job.job.retention.runs
    const days = flags.answerDays ?? job.job.retention.answerDays
    const collect = Effect.gen(function* () {
      const ledger = yield* Ledger
      const last = yield* ledger.lastRun(job.name)
      if (Option.isSome(last) && viewOf(last.value).state === "running") {
        return yield* new ConfigError({
          detail: `run ${last.value.id} of ${job.name} is going on: run gc when it has ended`
        })
      }
      return yield* ledger.gc(job.name, keep, Date.now() - days * DAY)
    })
    // Exit 7 (or wait) while another invocation of the job holds its lock: between taking the
    // lock and starting its run row, a run is not yet "going on" in the ledger. A signal while
    // waiting (--wait) ends the command with 130, nothing deleted.
    const result = yield* whileLocked(collect, { wait: o.wait }).pipe(
      Effect.onInterrupt(() => Effect.flatMap(CommandOutcome, (outcome) => Ref.set(outcome, Outcome.Interrupted())))
    )
    yield* Console.log(o.json ? JSON.stringify(result) : `svc-batch gc ${job.name}: ${describeGc(result)}`)
    return done
  })

export const gcCommand = Command.make(
  "gc",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file")),
    state: stateOption,
    keepRuns: Options.integer("keep-runs").pipe(
      Options.withDescription("runs whose records are kept (default: the job's retention.runs)"),
      Options.optional
    ),
    answerDays: Options.integer("answer-days").pipe(
      Options.withDescription("delete unused answers older than this (default: the job's retention.answerDays)"),
      Options.optional
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print the result as JSON")),
    wait: waitOption
  },
  ending((o) =>
    Effect.gen(function* () {
      // The job file's retention Schema: a flag takes the bounds `retention:` takes.
      const flags = yield* decodeRetentionOverrides({
        runs: Option.getOrUndefined(o.keepRuns),
        answerDays: Option.getOrUndefined(o.answerDays)
      })
      return yield* collectGarbage(o, flags).pipe(Effect.provide(pastRunsContext(o, { checked: true })))
    })
  )
).pipe(
  Command.withDescription(
    "Apply retention to a job's ledger: drop older runs' records and unused old answers, compact. Example: svc-batch gc jobs/nightly.yaml --keep-runs 3"
  )
)
