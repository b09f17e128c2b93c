/** Stages for engine tests: they answer from a fake `ask`, or from the emulator's endpoints. */
import { Effect, Schema } from "effect"
import { column, ColumnType } from "../../src/pipeline/columns.ts"
import type { Condition } from "../../src/pipeline/condition.ts"
import { makeRequest, prepared, type Stage } from "../../src/pipeline/stage.ts"

export const condition = (
  source: string,
  columns: ReadonlyArray<string>,
  test: (f: Readonly<Record<string, unknown>>) => boolean
): Condition => ({
  source,
  columns,
  test
})

/** One row: `<name>_len` = the text's length as answered by an "echo" chat request. */
export const lengthStage = (name: string, field: string, when?: Condition): Stage => ({
  name,
  reads: [field],
  calls: [],
  columns: [column(`${name}_len`, ColumnType.number)],
  ...(when ? { when } : {}),
  prepare: (fields) =>
    prepared(
      [
        makeRequest({
          endpoint: "chat",
          model: "svc3-mini",
          params: { stage: name },
          text: String(fields[field]),
          answer: Schema.Number,
          send: () => Effect.succeed({ value: String(fields[field]).length, tokens: 1 })
        })
      ],
      (answers) => [{ [`${name}_len`]: answers[0] }]
    )
})

/** Fan-out: one row per word of the field, with `<name>_word` and `<name>_n`. */
export const wordsStage = (name: string, field: string): Stage => ({
  name,
  reads: [field],
  calls: [],
  columns: [column(`${name}_word`, ColumnType.string), column(`${name}_n`, ColumnType.number)],
  fanOut: true,
  prepare: (fields) => {
    const words = String(fields[field])
      .split(/\s+/)
      .filter((w) => w !== "")
    return prepared(
      words.map((w) =>
        makeRequest({
          endpoint: "chat",
          model: "svc3-mini",
          params: { stage: name },
          text: w,
          answer: Schema.String,
          send: () => Effect.succeed({ value: w.toUpperCase(), tokens: 1 })
        })
      ),
      (answers) => answers.map((a, i) => ({ [`${name}_word`]: a, [`${name}_n`]: i }))
    )
  }
})

const Embedding = Schema.Struct({ vector: Schema.Array(Schema.Number), tokens: Schema.Number })

/** Embeds a field through the service: a vector(1536) column and a json column. */
export const embedStage = (field: string): Stage => ({
  name: "embed",
  reads: [field],
  calls: [],
  columns: [column("embedding", ColumnType.vector(1536)), column("embedding_info", ColumnType.json)],
  prepare: (fields) =>
    prepared(
      [
        makeRequest({
          endpoint: "embeddings",
          model: "svc3-embedding",
          params: { task_type: "RETRIEVAL_DOCUMENT" },
          text: String(fields[field]),
          answer: Embedding,
          send: (svc) =>
            svc.embed({ model: "svc3-embedding", input: String(fields[field]), task_type: "RETRIEVAL_DOCUMENT" }).pipe(
              Effect.map((r) => ({
                value: { vector: r.data[0]!.embedding, tokens: r.usage.total_tokens },
                tokens: r.usage.total_tokens
              }))
            )
        })
      ],
      (answers) => [
        { embedding: answers[0]!.vector, embedding_info: { tokens: answers[0]!.tokens, model: "svc3-embedding" } }
      ]
    )
})
