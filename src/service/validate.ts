/**
 * Pre-send validation: a request that breaks a documented limit becomes an InvalidRequestError
 * naming the field and the limit, and nothing is sent. The same schemas judge requests in the
 * emulator, so the two sides cannot drift apart.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { type Endpoint, InvalidRequestError } from "./errors.ts"
import { bodyLimitFor, utf8Bytes } from "./limits.ts"

export interface Issue {
  readonly field: string
  readonly message: string
  /** An excess (unlisted) property. */
  readonly unexpected: boolean
}

/** Flattens a ParseError into `field: message` issues. */
export const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => ({
    field: i.path.length === 0 ? "(body)" : i.path.map(String).join("."),
    message: i.message,
    unexpected: i._tag === "Unexpected"
  }))

/** Decodes a request strictly (unlisted fields are errors). */
export const decodeStrict = <A, I>(schema: Schema.Schema<A, I>, errors: "first" | "all" = "first") => {
  const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors })
  return (input: unknown): Either.Either<A, ReadonlyArray<Issue>> => Either.mapLeft(decode(input), issuesOf)
}

/** Validates `request` and serialises it, checking the endpoint's body limit. */
export const prepareBody = <A>(endpoint: Endpoint, path: string, schema: Schema.Schema<A, A>) => {
  const decode = decodeStrict(schema)
  const limit = bodyLimitFor(path)
  return (request: unknown): Effect.Effect<string, InvalidRequestError> =>
    Either.match(decode(request), {
      onLeft: (issues) => {
        const first = issues[0]!
        return Effect.fail(
          new InvalidRequestError({
            endpoint,
            field: first.field,
            limit: first.unexpected ? "is not a parameter of this endpoint" : first.message
          })
        )
      },
      onRight: (valid) => {
        // Request schemas have no transformations (Type = Encoded) and strict decoding has refused
        // excess fields, so the decoded value is exactly what goes on the wire.
        const body = JSON.stringify(valid)
        const bytes = utf8Bytes(body)
        return bytes > limit
          ? Effect.fail(
              new InvalidRequestError({ endpoint, field: "(body)", limit: `request body is ${bytes} bytes; at most ${limit}` })
            )
          : Effect.succeed(body)
      }
    })
}
