/**
 * `svc-batch demo`: one real call of each endpoint through the client, on the embedded emulator
 * unless SVC_BASE_URL is set, with a short summary.
 */
import { Command } from "@effect/cli"
import { Console, Effect, Stream } from "effect"
import { TextService } from "../service/client.ts"
import { Models } from "../service/limits.ts"
import { describeEndpoint, serviceLayer, ServiceEndpoint } from "./endpoint.ts"

const short = (s: string | null, n = 70) => {
  const t = (s ?? "").replace(/\s+/g, " ")
  return t.length > n ? `${t.slice(0, n)}…` : t
}

export const runDemo = Effect.gen(function* () {
  const endpoint = yield* ServiceEndpoint
  const svc = yield* TextService
  yield* Console.log(`svc-batch demo — ${describeEndpoint(endpoint)}`)

  const chat = yield* svc.chat({
    model: Models.chat,
    messages: [{ role: "user", content: "Summarise why batch jobs checkpoint." }],
    seed: 1
  })
  yield* Console.log(
    `  chat        ${chat.usage.total_tokens} tokens, finish ${chat.choices[0]?.finish_reason}: ${short(chat.choices[0]?.message.content ?? "")}`
  )

  const chunks = yield* Stream.runCount(
    svc.chatStream({ model: Models.chat, messages: [{ role: "user", content: "Stream a haiku." }] })
  )
  yield* Console.log(`  chat stream ${chunks} chunks, closed by data: [DONE]`)

  for (const text of ["A quiet morning walk by the river.", "Instructions to build a bomb at home."]) {
    const m = yield* svc.moderate(text)
    const codes = m.categories.map((c) => `${c.code} ${c.gloss}`).join(", ")
    yield* Console.log(`  moderate    ${m.verdict}${codes ? ` (${codes})` : ""}: ${short(text, 40)}`)
  }

  const docs = ["Dogs bark at night.", "Green tea is rich in antioxidants.", "How to brew green tea properly."]
  const ranked = yield* svc.rerank({ model: Models.rerank, query: "brewing green tea", documents: docs })
  const top = ranked.data[0].result[0]!
  yield* Console.log(
    `  rerank      best of ${docs.length}: #${top.document_id} (${top.score.toFixed(4)}) ${short(docs[top.document_id]!, 40)}`
  )

  const e = yield* svc.embed({
    model: Models.embedding,
    input: "vector stores need embeddings",
    task_type: "RETRIEVAL_DOCUMENT"
  })
  const norm = Math.sqrt(e.data[0].embedding.reduce((s, x) => s + x * x, 0))
  yield* Console.log(
    `  embeddings  ${e.data[0].embedding.length} dimensions, norm ${norm.toFixed(3)}, ${e.usage.prompt_tokens} tokens`
  )

  const t = yield* svc.translate({
    text: "The nightly job finished without errors.",
    source_lang: "en",
    target_lang: "ja"
  })
  yield* Console.log(`  translate   en→ja: ${short(t.translated_text, 60)}`)
  if (endpoint.emulated) yield* Console.log("All answers above came from the embedded EMULATOR.")
})

export const demoCommand = Command.make("demo", {}, () => runDemo.pipe(Effect.provide(serviceLayer()))).pipe(
  Command.withDescription(
    "Call each endpoint once (embedded emulator unless SVC_BASE_URL is set) and print a summary. Example: svc-batch demo"
  )
)
