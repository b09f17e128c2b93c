/**
 * Embedding backfill: the mapped text column through svc3-guard, then what passed embedded
 * (RETRIEVAL_DOCUMENT, long texts as the token-weighted mean of their chunks). Pair it with a
 * `store:` section to keep a sqlite-vec store in step (see jobs/embedding-backfill.yaml).
 */
import { Either } from "effect"
import { parseCondition } from "../src/pipeline/condition.ts"
import { definePreset } from "../src/pipeline/preset.ts"
import { embed } from "../src/stages/embed.ts"
import { moderate } from "../src/stages/moderate.ts"

const passed = Either.getOrThrow(parseCondition("moderation_verdict == 'safe'"))

export default definePreset({
  name: "embedding-backfill",
  description:
    "Moderate a text column with svc3-guard, then embed what passed (svc3-embedding, RETRIEVAL_DOCUMENT); adds the moderation columns and embedding (vector(1536))",
  inputs: { text: "the one column to moderate and embed" },
  build: (fields) => [moderate({ fields: fields.text! }), embed({ field: fields.text![0]!, when: passed })]
})
