/**
 * The checks of a job against its input that need no request, once, for every command that reads
 * a job before sending: `plan`, `run --dry-run`, `check` and `run` refuse the same job the same way
 * (exit 2, the same message). An input that cannot be read is left to the command's own read of
 * it, which says why (`check` does not need the input at all).
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { openSource } from "../io/open-source.ts"
import { checkInputColumns } from "./input-columns.ts"
import type { ResolvedJob } from "./job.ts"
import type { Pipeline } from "./stage.ts"

export const checkJobInput = (job: ResolvedJob, pipeline: Pipeline) =>
  Effect.gen(function* () {
    if (!existsSync(job.input.path)) return
    const source = openSource(job.input.path, job.input.format, job.input.encoding, job.input)
    yield* Effect.catchTag(checkInputColumns(pipeline, job.input.id, source), "SourceError", () => Effect.void)
  })
