/**
 * The presets a job file can name (`pipeline: moderation`), and the pipeline of a job: its preset
 * built with the job's field mapping, or its listed stages — checked before anything runs.
 */
import { Effect, Either, Schema } from "effect"
import { dirname, resolve } from "node:path"
import { describeIssues, JobFileError, type JobFile } from "../src/job/job-file.ts"
import { type Condition, parseCondition } from "../src/pipeline/condition.ts"
import { type Preset, presetStages } from "../src/pipeline/preset.ts"
import { makePipeline, type Pipeline, type Stage } from "../src/pipeline/stage.ts"
import { stageTypes } from "../src/stages/index.ts"
import type { StageType } from "../src/pipeline/stage-type.ts"
import embeddingBackfill from "./embedding-backfill.ts"
import extract from "./extract.ts"
import moderation from "./moderation.ts"
import rerank from "./rerank.ts"
import translation from "./translation.ts"

/** `{ translate: { fields: [body], to: en, when: "…" } }` at `stages.<index>` → a stage. */
export const stageFromEntry = <O>(
  type: StageType<O>,
  raw: unknown,
  file: string,
  index: number
): Either.Either<Stage, JobFileError> => {
  const at = ["stages", index, type.name]
  const fail = (detail: string) => Either.left(new JobFileError({ file, detail }))
  if (raw !== null && raw !== undefined && (typeof raw !== "object" || Array.isArray(raw)))
    return fail(`${at.join(".")}: expected the stage's options as a mapping`)
  const { when, ...rest } = (raw ?? {}) as Record<string, unknown>
  let condition: Condition | undefined
  if (when !== undefined) {
    if (typeof when !== "string")
      return fail(`${at.join(".")}.when: expected an expression in a string, e.g. "moderation_verdict == 'safe'"`)
    const parsed = parseCondition(when)
    if (Either.isLeft(parsed)) return fail(`${at.join(".")}.when: ${parsed.left.message}`)
    condition = parsed.right
  }
  const options = Schema.decodeUnknownEither(type.options, { onExcessProperty: "error", errors: "all" })(rest)
  if (Either.isLeft(options)) return fail(describeIssues(options.left, at))
  const stage = type.make(options.right, condition, { dir: dirname(resolve(file)) })
  return typeof stage === "string" ? fail(`${at.join(".")}.${stage}`) : Either.right(stage)
}

export const presets: Readonly<Record<string, Preset>> = {
  moderation,
  translation,
  "embedding-backfill": embeddingBackfill,
  rerank,
  extract
}

const listedStages = (
  file: string,
  entries: ReadonlyArray<Readonly<Record<string, unknown>>>
): Either.Either<ReadonlyArray<Stage>, JobFileError> =>
  Either.all(
    entries.map((entry, index) => {
      const [name, options] = Object.entries(entry)[0]!
      const type = stageTypes[name]
      if (type === undefined) {
        return Either.left(
          new JobFileError({
            file,
            detail: `stages.${index}: unknown stage ${JSON.stringify(name)} (known: ${Object.keys(stageTypes).join(", ")})`
          })
        )
      }
      return stageFromEntry(type, options, file, index)
    })
  )

/** The job's pipeline, or an error naming the file and what is wrong. */
export const pipelineForJob = (file: string, job: JobFile): Effect.Effect<Pipeline, JobFileError> =>
  Effect.gen(function* () {
    let name: string
    let description: string
    let stages: ReadonlyArray<Stage>
    if (job.stages !== undefined) {
      name = job.name
      description = job.description ?? "stages listed in the job file"
      stages = yield* listedStages(file, job.stages)
    } else {
      const preset = presets[job.pipeline!]
      if (preset === undefined) {
        return yield* new JobFileError({
          file,
          detail: `pipeline: unknown pipeline ${JSON.stringify(job.pipeline)} (known: ${Object.keys(presets).join(", ")})`
        })
      }
      const built = presetStages(preset, job.fields ?? {})
      if (typeof built === "string") return yield* new JobFileError({ file, detail: built })
      name = preset.name
      description = preset.description
      stages = built
    }
    return yield* makePipeline(name, description, stages).pipe(
      Effect.mapError((e) => new JobFileError({ file, detail: e.message }))
    )
  })
