/**
 * `svc-batch plan <job-file> [--json]` (and `run --dry-run`): what a run would cost and how long it
 * would take — per stage and model: records, requests already answered (free), requests to send,
 * tokens and code points still to send, and the duration at the job's rpm limits. Reads the input
 * once; sends nothing; starts no emulator.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { planJob } from "../engine/plan.ts"
import { openSource } from "../io/sources/index.ts"
import { checkReadable } from "../io/input-access.ts"
import { JobContext, jobContext, withJobLedger } from "../job/job-context.ts"
import { envProvider, settingsFromEnv } from "../service/config.ts"
import { answerFingerprint, emulatorOrigin } from "../emulator/identity.ts"
import { ConfigError } from "./endpoint.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { planLines } from "./present/plan-table.ts"
import { options as runOptions } from "./run-flags.ts"
import { ledgerOverrides } from "./state-option.ts"

/**
 * The plan of the context's job (`plan` and `run --dry-run`), checked as `run` checks it: a column
 * the job reads that the input lacks is exit 2, naming it, not a plan of records refused one by one.
 */
export const planOf = Effect.gen(function* () {
  const { job, pipeline } = yield* JobContext
  const env = yield* settingsFromEnv.pipe(
    Effect.withConfigProvider(envProvider()),
    Effect.mapError((e) => new ConfigError({ detail: `invalid configuration: ${e.message}` }))
  )
  // The origin the answers would come from, as the ledger keys them (never the key).
  // A URL is not probed for a standalone emulator (plan sends nothing): its answers are looked up by the URL.
  const origin = Option.match(
    Option.filter(env.baseUrl, (u) => u !== ""),
    {
      onNone: () => emulatorOrigin(answerFingerprint(job.job.emulator ?? {})),
      onSome: (u) => u.replace(/\/+$/, "")
    }
  )
  yield* checkReadable(job.input.path)
  const source = openSource(job.input.path, job.input.format, job.input)
  // A job that has not run yet: nothing answered, and no ledger made.
  const plan = yield* withJobLedger(planJob(pipeline, source, origin, job.limits.rpm), { create: false })
  return { plan, origin }
})

export const planCommand = Command.make(
  "plan",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file")),
    // The flags that choose what `run` would read and where its answers are, as `run` takes them.
    input: runOptions.input,
    inputFormat: runOptions.inputFormat,
    inputEncoding: runOptions.inputEncoding,
    state: runOptions.state,
    json: Options.boolean("json").pipe(Options.withDescription("print the plan as one JSON object"))
  },
  (o) =>
    Effect.gen(function* () {
      const { job } = yield* JobContext
      const { plan, origin } = yield* planOf
      yield* Console.log(
        o.json ? JSON.stringify({ job: job.name, origin, ...plan }) : planLines(job, plan, origin).join("\n")
      )
    }).pipe(
      Effect.provide(
        jobContext(o.job, {
          checked: true,
          overrides: {
            input: Option.getOrUndefined(o.input),
            inputFormat: Option.getOrUndefined(o.inputFormat),
            inputEncoding: Option.getOrUndefined(o.inputEncoding),
            ...ledgerOverrides(o.state)
          }
        })
      )
    )
).pipe(
  Command.withDescription(
    "Estimate a run without sending anything: per stage and model, records, answers already in the ledger, requests to send, tokens, duration at the rpm limits. Example: svc-batch plan jobs/bulk-translate.yaml"
  )
)
