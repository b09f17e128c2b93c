/**
 * A record's field as the text a request carries. Strings go as they are; numbers, booleans and
 * big integers as their text (`42`, `true`); null as no text. A JSON object or array is not text:
 * sent as `String(value)` it became "[object Object]" or "a,b" and was judged (safe) or translated
 * as if it were the record's content — so the record fails, naming the field, and nothing is sent.
 * (A generate prompt is the place to send structured values: `{{field}}` inserts them as JSON.)
 */
import { StageInputError } from "../pipeline/stage.ts"

export const fieldText = (field: string, value: unknown): string | null | StageInputError => {
  if (value === null) return null
  switch (typeof value) {
    case "string":
      return value
    case "number":
    case "boolean":
    case "bigint":
      return String(value)
    default: {
      const kind = Array.isArray(value)
        ? "a JSON array"
        : typeof value === "object"
          ? "a JSON object"
          : `a ${typeof value}`
      return new StageInputError({
        message: `field ${JSON.stringify(field)} holds ${kind}, not text; nothing was sent (make it a string in the input, or use a generate stage, whose {{field}} inserts JSON)`
      })
    }
  }
}
