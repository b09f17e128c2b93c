/** The stage types a job file's `stages:` list can name. A new stage: one file, one line here. */
import { embedStage } from "./embed.ts"
import { generateStage } from "./generate.ts"
import { moderateStage } from "./moderate.ts"
import { rerankStage } from "./rerank.ts"
import type { AnyStageType } from "../pipeline/stage-type.ts"
import { translateStage } from "./translate.ts"

export const stageTypes: Readonly<Record<string, AnyStageType>> = {
  moderate: moderateStage,
  embed: embedStage,
  rerank: rerankStage,
  generate: generateStage,
  translate: translateStage
}
