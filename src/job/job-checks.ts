/**
 * Every check of a job that needs no request, in one place, for every command that reads a job
 * before sending: `plan`, `run --dry-run`, `check`, `run`, `retry` and `gc` accept and refuse the same job
 * the same way (exit 2, the same message): an rpm for a model no stage uses, an output format no
 * sink has, a vector store the pipeline cannot feed, whose index cannot load, or that another job owns, a column the job
 * reads that the input lacks. An input that cannot be read is left to the command's own read of
 * it, which says why (`check` does not need the input at all). A stage's own options (a generate
 * JSON Schema that does not compile) are refused before this, when the job context builds the
 * pipeline — the same step for every command.
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { checkInputColumns } from "../engine/input-columns.ts"
import type { Pipeline } from "../pipeline/stage.ts"
import { pipelineModels } from "../pipeline/stage.ts"
import { openSource } from "../io/sources/index.ts"
import { sinks } from "../io/sinks/index.ts"
import { hnswUnavailable } from "../store/hnsw-index.ts"
import { checkStoreOwner } from "../store/store-owner.ts"
import { storeVectorColumn } from "../store/vector-store.ts"
import { JobFileError, OptionError } from "./job-file.ts"
import type { ResolvedJob } from "./resolve-job.ts"

export const checkJob = (job: ResolvedJob, pipeline: Pipeline) =>
  Effect.gen(function* () {
    const unusedRpm = unusedRpmModels(job.limits.rpm, pipelineModels(pipeline))
    if (unusedRpm !== undefined) {
      return yield* job.rpmFromFlag
        ? new OptionError({ flag: "--rpm", detail: unusedRpm })
        : new JobFileError({ file: job.file, detail: `limits.rpm: ${unusedRpm}` })
    }
    if (sinks[job.output.format] === undefined) {
      return yield* new JobFileError({
        file: job.file,
        detail: `output.format: unknown sink ${JSON.stringify(job.output.format)} (known: ${Object.keys(sinks).join(", ")})`
      })
    }
    if (job.store !== undefined) {
      // A store the pipeline cannot feed is a job error, before any request.
      const target = storeVectorColumn(job.store, pipeline.columns)
      if (typeof target === "string") return yield* new JobFileError({ file: job.file, detail: target })
      const noIndex = job.store.index === "hnsw" ? hnswUnavailable() : undefined
      if (noIndex !== undefined) return yield* new JobFileError({ file: job.file, detail: noIndex })
      yield* checkStoreOwner(job.name, job.store)
    }
    if (!existsSync(job.input.path)) return
    const source = openSource(job.input.path, job.input.format, job.input)
    yield* Effect.catchTag(checkInputColumns(pipeline, job.input.id, source), "SourceError", () => Effect.void)
  })

/**
 * An rpm for a model that no stage of the pipeline sends to is a typo, never a wish: the problem
 * (naming the models that are used), or undefined. `*` (every other model) always fits. Unknown
 * when a stage does not declare its models (then nothing is checked).
 */
export const unusedRpmModels = (
  rpm: Readonly<Record<string, number>>,
  used: ReadonlyArray<string> | undefined
): string | undefined => {
  if (used === undefined) return undefined
  const unused = Object.keys(rpm).filter((model) => model !== "*" && !used.includes(model))
  if (unused.length === 0) return undefined
  return `${unused.map((m) => JSON.stringify(m)).join(", ")}: no stage of this job uses ${unused.length === 1 ? "this model" : "these models"} (used: ${used.join(", ")}; "*" for every other)`
}
