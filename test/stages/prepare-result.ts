/** A stage's preparation in tests: `prepare` returns a preparation or a refusal, not an Effect. */
import { type Prepared, StageInputError } from "../../src/pipeline/stage.ts"

/** The preparation, or a thrown error naming the refusal. */
export const preparation = (result: Prepared | StageInputError): Prepared => {
  if (result instanceof StageInputError) throw new Error(`expected a preparation, got the refusal: ${result.message}`)
  return result
}

/** The refusal, or a thrown error when the stage prepared the record. */
export const refusal = (result: Prepared | StageInputError): StageInputError => {
  if (!(result instanceof StageInputError)) throw new Error("expected the stage to refuse the record")
  return result
}
