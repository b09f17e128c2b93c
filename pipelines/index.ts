/** The pipelines a job file can name. */
import type { PipelineDefinition } from "../src/engine/pipeline-registry.ts"
import moderation from "./moderation.ts"

export const pipelines: Readonly<Record<string, PipelineDefinition>> = { moderation }
