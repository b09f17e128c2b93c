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

/**
 * What a request's validity depends on, as a string, for an endpoint whose rules do not look at
 * some of its text (chat: no rule of §4.1 reads a message's content beyond its type; only the body
 * limit does). Requests with the same shape are equally valid.
 */
export type ShapeOf = (request: unknown) => string

/** A chat request without its messages' text: what ChatRequest's rules can judge. */
export const chatShape: ShapeOf = (request) =>
  JSON.stringify(request, (key, value: unknown) => (key === "content" && typeof value === "string" ? "" : value))

/** Shapes remembered per endpoint: a stage sends one or a few; a bound, not a working size. */
const MAX_SHAPES = 256

/**
 * Validates `request` and serialises it, checking the endpoint's body limit. With `shapeOf`, a shape
 * is decoded strictly once; a later request of the same shape (a stage's next record) is checked
 * only against the body limit: the strict decode was a tenth of the client's CPU per request.
 */
export const prepareBody = <A>(endpoint: Endpoint, path: string, schema: Schema.Schema<A, A>, shapeOf?: ShapeOf) => {
  const decode = decodeStrict(schema)
  const limit = bodyLimitFor(path)
  const valid = new Set<string>()
  const sized = (body: string): Effect.Effect<string, InvalidRequestError> => {
    const bytes = utf8Bytes(body)
    return bytes > limit
      ? Effect.fail(
          new InvalidRequestError({
            endpoint,
            field: "(body)",
            limit: `request body is ${bytes} bytes; at most ${limit}`
          })
        )
      : Effect.succeed(body)
  }
  const shapeKey = (request: unknown): string | undefined => {
    if (shapeOf === undefined) return undefined
    try {
      return shapeOf(request)
    } catch {
      // Not JSON (a BigInt, a cycle): the strict decode says why.
      return undefined
    }
  }
  return (request: unknown): Effect.Effect<string, InvalidRequestError> => {
    const shape = shapeKey(request)
    if (shape !== undefined && valid.has(shape)) return sized(JSON.stringify(request))
    return Either.match(decode(request), {
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
      onRight: (decoded) => {
        if (shape !== undefined && valid.size < MAX_SHAPES) valid.add(shape)
        // Request schemas have no transformations (Type = Encoded) and strict decoding has refused
        // excess fields, so the decoded value is exactly what goes on the wire.
        return sized(JSON.stringify(decoded))
      }
    })
  }
}
