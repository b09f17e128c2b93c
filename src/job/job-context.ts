/**
 * One job context per command: the job file resolved with the command's overrides and its
 * pipeline, built once; and the job's ledger, the one place a command opens it (`jobLedger`).
 */
import { Context, Effect, Layer } from "effect"
import { pipelineForJob } from "../../pipelines/index.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { PostgresLedger } from "../ledger/postgres-ledger.ts"
import { SqliteLedger } from "../ledger/sqlite-ledger.ts"
import { type JobOverrides, resolveJob, type ResolvedJob } from "./resolve-job.ts"

export class JobContext extends Context.Tag("svc-batch/JobContext")<
  JobContext,
  { readonly job: ResolvedJob; readonly pipeline: Pipeline }
>() {}

/** The context of `file` with the command line's overrides. */
export const jobContext = (
  file: string,
  overrides: JobOverrides = {},
  options?: { readonly inputMustExist: boolean }
) =>
  Layer.effect(
    JobContext,
    Effect.gen(function* () {
      const job = yield* resolveJob(file, overrides, options)
      const pipeline = yield* pipelineForJob(file, job.job)
      return { job, pipeline }
    })
  )

/**
 * The ledger of a job, opened for the scope it is provided to: the one place an adapter is chosen —
 * PostgreSQL when the job resolved to a URL (`--ledger`, SVC_BATCH_LEDGER_URL, `ledger:`), else
 * the SQLite file at its `state`.
 */
export const jobLedger = (job: ResolvedJob) =>
  job.ledgerUrl !== undefined ? PostgresLedger.layer({ url: job.ledgerUrl }) : SqliteLedger.layer({ path: job.state })
