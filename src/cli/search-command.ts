/**
 * `svc-batch search <job-file> "query" [-k 10] [--rerank] [--json]`: the first thing to type after
 * a backfill. Embeds the query (RETRIEVAL_QUERY, the model of the stage that fed the store), runs
 * the KNN query on the job's vector store, optionally reranks the hits with svc3-rerank, and
 * prints each hit's key, distance (and score) and the start of its text.
 */
import { withDefaultShown } from "./option-default.ts"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { existsSync } from "node:fs"
import { JobContext, jobContext } from "../job/job-context.ts"
import { TextService } from "../service/client.ts"
import { Models } from "../service/limits.ts"
import { EmbeddingTaskType } from "../service/schemas/endpoints.ts"
import { batches, scoreBatch } from "../stages/rerank.ts"
import { vectorStoreFor } from "../io/sinks/index.ts"
import { type Hit, storeVectorColumn } from "../store/vector-store.ts"
import { ConfigError, describeEndpoint, serviceLayer, ServiceEndpoint } from "./endpoint.ts"
import { jobFileArg } from "./job-file-arg.ts"

const fail = (detail: string) => Effect.fail(new ConfigError({ detail }))

interface Result extends Hit {
  readonly score?: number
}

const excerpt = (text: string | null, width: number) => {
  if (text === null) return "(no text kept: set store.text)"
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat
}

export const searchCommand = Command.make(
  "search",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file whose store: to search")),
    query: Args.text({ name: "query" }).pipe(Args.withDescription("the query text")),
    k: Options.integer("top-k").pipe(
      Options.withAlias("k"),
      Options.withDescription("how many nearest rows (-k for short)"),
      withDefaultShown(10)
    ),
    rerank: Options.boolean("rerank").pipe(
      Options.withDescription("rerank the hits' texts with svc3-rerank (needs store.text)")
    ),
    taskType: Options.choice("task-type", EmbeddingTaskType.literals).pipe(
      Options.withDescription("the query's embedding task type"),
      withDefaultShown("RETRIEVAL_QUERY")
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print JSON Lines, one hit per line"))
  },
  (o) =>
    Effect.gen(function* () {
      if (o.k < 1 || o.k > 4096) return yield* fail(`--top-k: expected 1 to 4096, got ${o.k}`)
      if (o.query.trim() === "") return yield* fail("the query is empty")
      const { job, pipeline } = yield* JobContext.pipe(Effect.provide(jobContext(o.job, { inputMustExist: false })))
      const store = job.store
      if (store === undefined) return yield* fail(`${o.job}: the job has no store: section (nothing to search)`)
      const target = storeVectorColumn(store, pipeline.columns)
      if (typeof target === "string") return yield* fail(`${o.job}: ${target}`)
      const vectorStore = vectorStoreFor(store.format)
      if (vectorStore === undefined) return yield* fail(`${o.job}: store.format: no vector store named ${store.format}`)
      if (!existsSync(store.path))
        return yield* fail(`${store.path}: no vector store yet: run the job first (svc-batch run ${o.job})`)
      if (o.rerank && store.text === undefined)
        return yield* fail(`${o.job}: --rerank needs the hits' texts: set store.text`)
      const feeder = pipeline.stages.find((s) => s.columns.some((c) => c.name === target.column))
      const model = feeder?.calls.find((c) => c.endpoint === "embeddings")?.model ?? Models.embedding

      const results = yield* Effect.gen(function* () {
        const endpoint = yield* ServiceEndpoint
        if (!o.json) yield* Console.error(`svc-batch search ${job.name} — ${describeEndpoint(endpoint)}`)
        const svc = yield* TextService
        const embedded = yield* svc.embed({ input: o.query, task_type: o.taskType, model })
        const hits = yield* Effect.try({
          try: () => vectorStore.search(store, embedded.data[0].embedding, o.k),
          catch: (e) => new ConfigError({ detail: (e as Error).message })
        })
        if (!o.rerank || hits.length === 0) return hits as ReadonlyArray<Result>
        const scored = hits.filter((h) => h.text !== null && h.text.trim() !== "")
        const scores = yield* Effect.forEach(batches(scored), (group) =>
          scoreBatch(svc, { query: o.query, documents: group.map((h) => h.text!), model: Models.rerank }).pipe(
            Effect.map((r) => r.value)
          )
        )
        const flat = scores.flat()
        return scored.map((h, i) => ({ ...h, score: flat[i]! })).sort((a, b) => b.score - a.score)
      }).pipe(Effect.provide(serviceLayer(job.job.emulator ?? {}, { serviceRequired: job.job.service === "required" })))

      if (o.json) {
        for (const r of results)
          yield* Console.log(
            JSON.stringify({
              key: r.key,
              record: r.recordKey,
              distance: r.distance,
              ...(r.score !== undefined ? { score: r.score } : {}),
              text: r.text,
              ...(Object.keys(r.metadata).length ? { metadata: r.metadata } : {})
            })
          )
        return
      }
      if (results.length === 0) {
        yield* Console.log("no hits (the store is empty)")
        return
      }
      const keyWidth = Math.min(24, Math.max(3, ...results.map((r) => r.key.length)))
      yield* Console.log(`${"key".padEnd(keyWidth)}  distance${o.rerank ? "  score   " : ""}  text`)
      for (const r of results) {
        const score = r.score !== undefined ? `  ${r.score.toFixed(5)}` : ""
        yield* Console.log(
          `${r.key.slice(0, keyWidth).padEnd(keyWidth)}  ${r.distance.toFixed(4).padStart(8)}${score}  ${excerpt(r.text, 72)}`
        )
      }
    })
).pipe(
  Command.withDescription(
    'Search a job\'s vector store: embed the query, nearest rows by cosine distance, optionally reranked. Example: svc-batch search jobs/embedding-backfill.yaml "reset my password" -k 5 --rerank'
  )
)
