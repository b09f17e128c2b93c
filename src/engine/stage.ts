/**
 * A stage turns a record's fields into requests and the answers into output fields. The runner
 * knows nothing of what a stage does: translate (chunks), embed, rerank (batches of 20) and
 * generate plug in through this interface.
 */
import type { Effect } from "effect"
import type { TextService } from "../service/client.ts"
import type { Endpoint, ServiceError } from "../service/errors.ts"

export type Fields = Readonly<Record<string, unknown>>

export interface StageRequest {
  readonly endpoint: Endpoint
  /** Limiter key: the model (translate: "translate"). */
  readonly model: string
  /** Everything besides the text that changes the answer; part of the content key. */
  readonly params: unknown
  readonly text: string
  /** Sends the request; the result is the answer stored in the ledger (JSON-serialisable). */
  readonly send: (service: TextService) => Effect.Effect<StoredAnswer, ServiceError | { readonly _tag: string; readonly message: string; readonly retryable: boolean }>
}

export interface StoredAnswer {
  readonly value: unknown
  readonly tokens: number
}

/** A record the stage cannot work on (e.g. a missing field): it fails without a request. */
export class StageInputError {
  readonly _tag = "StageInputError"
  constructor(readonly message: string) {}
}

export interface Stage {
  readonly name: string
  /** Fields it reads: input columns or earlier stages' outputs. */
  readonly reads: ReadonlyArray<string>
  /** Output columns it adds. */
  readonly outputs: ReadonlyArray<string>
  /** Skip the stage for a record (its outputs are then empty) unless this holds. */
  readonly when?: (fields: Fields) => boolean
  readonly requests: (fields: Fields) => ReadonlyArray<StageRequest> | StageInputError
  /** Answers (in request order) → one output field set per output row (usually one). */
  readonly combine: (fields: Fields, answers: ReadonlyArray<unknown>) => ReadonlyArray<Fields>
}

export interface Pipeline {
  readonly name: string
  readonly description: string
  readonly stages: ReadonlyArray<Stage>
}
