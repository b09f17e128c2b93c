/**
 * Bulk dataset translation into English: the mapped columns through svc3-guard, then what passed
 * translated (ja → en, direction detected per record and field). For ja as the target, or other
 * options, list the stages in the job file instead (see jobs/bulk-translate.yaml).
 */
import { Either } from "effect"
import { parseCondition } from "../src/pipeline/condition.ts"
import { definePreset } from "../src/pipeline/preset.ts"
import { moderate } from "../src/stages/moderate.ts"
import { translate } from "../src/stages/translate.ts"

const passed = Either.getOrThrow(parseCondition("moderation_verdict == 'safe'"))

export default definePreset({
  name: "translation",
  description:
    "Moderate text columns with svc3-guard, then translate what passed into English; adds the moderation columns, <field>_en per field and translate_warnings",
  inputs: { text: "the column(s) to moderate and translate" },
  build: (fields) => [moderate({ fields: fields.text! }), translate({ fields: fields.text!, to: "en", when: passed })]
})
