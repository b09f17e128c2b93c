/**
 * The checks of a job that need no request, once, for every command that reads a job before
 * sending: `plan`, `run --dry-run`, `check` and `run` refuse the same job the same way (exit 2, the
 * same message): a vector store table another job owns, a column the job reads that the input
 * lacks. An input that cannot be read is left to the command's own read of it, which says why
 * (`check` does not need the input at all).
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { openSource } from "../io/open-source.ts"
import { checkStoreOwner } from "../store/store-owner.ts"
import { checkInputColumns } from "./input-columns.ts"
import type { ResolvedJob } from "./job.ts"
import type { Pipeline } from "../pipeline/stage.ts"

export const checkJob = (job: ResolvedJob, pipeline: Pipeline) =>
  Effect.gen(function* () {
    if (job.store !== undefined) yield* checkStoreOwner(job.name, job.store)
    if (!existsSync(job.input.path)) return
    const source = openSource(job.input.path, job.input.format, job.input.encoding, job.input)
    yield* Effect.catchTag(checkInputColumns(pipeline, job.input.id, source), "SourceError", () => Effect.void)
  })
