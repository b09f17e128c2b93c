/**
 * `svc-batch plan <job-file> [--json]` (and `run --dry-run`): what a run would cost and how long it
 * would take — per stage and model: records, requests already answered (free), requests to send,
 * tokens and code points still to send, and the duration at the job's rpm limits. Reads the input
 * once; sends nothing; starts no emulator.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { ledgerMayExist, type ResolvedJob } from "../job/resolve-job.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { planJob } from "../engine/plan.ts"
import { openSource } from "../io/sources/index.ts"
import { checkJob } from "../job/job-checks.ts"
import { checkReadable } from "../io/input-access.ts"
import { SqliteLedger } from "../ledger/sqlite-ledger.ts"
import { JobContext, jobContext, jobLedger } from "../job/job-context.ts"
import { envProvider, settingsFromEnv } from "../service/config.ts"
import { answerFingerprint, emulatorOrigin } from "../emulator/identity.ts"
import { ConfigError } from "./endpoint.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { planLines } from "./present/plan-table.ts"

/** The plan of a resolved job (used by `plan` and `run --dry-run`). */
export const planOf = (job: ResolvedJob, pipeline: Pipeline) =>
  Effect.gen(function* () {
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
    // As `run` does: a column the job reads that the input lacks is exit 2 here too, naming it, not
    // a plan of records refused one by one.
    yield* checkJob(job, pipeline)
    const plan = ledgerMayExist(job)
      ? yield* planJob(pipeline, source, origin, job.limits.rpm).pipe(Effect.provide(jobLedger(job)))
      : yield* planJob(pipeline, source, origin, job.limits.rpm).pipe(Effect.provide(SqliteLedger.layerMemory))
    return { plan, origin }
  })

export const planCommand = Command.make(
  "plan",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file")),
    json: Options.boolean("json").pipe(Options.withDescription("print the plan as one JSON object"))
  },
  (o) =>
    Effect.gen(function* () {
      const { job, pipeline } = yield* JobContext
      const { plan, origin } = yield* planOf(job, pipeline)
      yield* Console.log(
        o.json ? JSON.stringify({ job: job.name, origin, ...plan }) : planLines(job, plan, origin).join("\n")
      )
    }).pipe(Effect.provide(jobContext(o.job)))
).pipe(
  Command.withDescription(
    "Estimate a run without sending anything: per stage and model, records, answers already in the ledger, requests to send, tokens, duration at the rpm limits. Example: svc-batch plan jobs/bulk-translate.yaml"
  )
)
