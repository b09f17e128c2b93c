/**
 * How an answer is stored and read back, the same in every ledger adapter: JSON text through the
 * request's own answer Schema, or bytes for a Schema marked StoredAsBlob (a Float32 vector).
 */
import { Either, type Option, Schema, SchemaAST } from "effect"
import type { StoredAnswer, StoredSchema } from "./ledger.ts"
import { decodeFloat32Vector, isStoredAsBlob } from "./stored.ts"

interface Codec {
  readonly decode: (stored: StoredAnswer) => Either.Either<unknown, unknown>
  readonly encode: (value: unknown) => StoredAnswer
}

/** One compiled codec per answer Schema (requests of a stage share theirs). */
const codecs = new WeakMap<object, Codec>()

export const codecFor = <A>(schema: StoredSchema<A>): Codec => {
  let codec = codecs.get(schema)
  if (codec === undefined) {
    const wire = isStoredAsBlob(schema) ? schema : Schema.parseJson(schema)
    const decode = Schema.decodeUnknownEither(wire)
    codec = {
      decode: SchemaAST.isStringKeyword(schema.ast) ? decodeStoredString : decode,
      encode: Schema.encodeSync(wire) as (value: unknown) => StoredAnswer
    }
    codecs.set(schema, codec)
  }
  return codec
}

/**
 * `Schema.String`'s decode, by hand: JSON text holding a string. Most stages' answers are text,
 * and a warm run decodes one per record (the Schema's parser took ~1 µs each).
 */
const decodeStoredString = (stored: StoredAnswer): Either.Either<unknown, unknown> => {
  if (typeof stored !== "string") return Either.left("not JSON text")
  try {
    const value: unknown = JSON.parse(stored)
    return typeof value === "string" ? Either.right(value) : Either.left("not a string")
  } catch (e) {
    return Either.left(e)
  }
}

/** Decodes an answer read by `answersFor` with its request's Schema; none if stored in another shape. */
export const decodeAnswer = <A>(stored: StoredAnswer, schema: StoredSchema<A>): Option.Option<A> =>
  Either.getRight(codecFor(schema).decode(stored)) as Option.Option<A>

/** A stored answer as plain data: JSON parsed; bytes are a Float32 vector (the one binary answer). */
export const plainAnswer = (stored: StoredAnswer): unknown =>
  typeof stored === "string" ? JSON.parse(stored) : decodeFloat32Vector(stored)
