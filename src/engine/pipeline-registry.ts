/** How a pipeline module in `pipelines/` describes itself, and how a job's field mapping reaches it. */
import type { Pipeline } from "./stage.ts"

export type FieldMapping = Readonly<Record<string, string | ReadonlyArray<string>>>

export interface PipelineDefinition {
  readonly name: string
  readonly description: string
  /** The pipeline's named inputs and what each is for; every one must be mapped by the job. */
  readonly inputs: Readonly<Record<string, string>>
  readonly build: (fields: Readonly<Record<string, ReadonlyArray<string>>>) => Pipeline
}

export const definePipeline = (definition: PipelineDefinition): PipelineDefinition => definition

/** Builds `definition` with the job's mapping, or says which input is missing or unknown. */
export const buildPipeline = (definition: PipelineDefinition, mapping: FieldMapping): Pipeline | string => {
  const fields: Record<string, ReadonlyArray<string>> = {}
  for (const [name, what] of Object.entries(definition.inputs)) {
    const mapped = mapping[name]
    if (mapped === undefined) return `fields.${name} is required by pipeline ${definition.name} (${what})`
    fields[name] = typeof mapped === "string" ? [mapped] : mapped
  }
  for (const name of Object.keys(mapping)) {
    if (!(name in definition.inputs)) return `fields.${name}: pipeline ${definition.name} has no input ${name} (it has: ${Object.keys(definition.inputs).join(", ")})`
  }
  return definition.build(fields)
}
