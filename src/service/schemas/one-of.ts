/**
 * Enumerations whose error names every allowed value (`Expected one of "ja", "en", actual "fr"`),
 * where a plain `Schema.Literal` union names only the first. Values shown are capped in length.
 */
import { Schema, type SchemaAST } from "effect"

/** A value for an error message: its JSON, at most `max` characters. */
export const shown = (value: unknown, max = 80): string => {
  const text = value === undefined ? "undefined" : (JSON.stringify(value) ?? String(value))
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text
}

export const oneOf = <const L extends readonly [SchemaAST.LiteralValue, ...Array<SchemaAST.LiteralValue>]>(
  ...values: L
): Schema.Literal<[...L]> =>
  Schema.Literal(...values).annotations({
    message: (issue) => ({
      message: `Expected one of ${values.map((v) => JSON.stringify(v)).join(", ")}, actual ${shown(issue.actual)}`,
      override: true
    })
  })
