/** Nightly corpus moderation: every mapped text column through svc3-guard. */
import { definePreset } from "../src/pipeline/preset.ts"
import { moderate } from "../src/stages/moderate.ts"

export default definePreset({
  name: "moderation",
  description:
    "Judge one or more text columns with svc3-guard; adds moderation_verdict, moderation_categories, moderation_raw",
  inputs: { text: "the column(s) to judge; a record is harmful if any of them is" },
  build: (fields) => [moderate({ fields: fields.text! })]
})
