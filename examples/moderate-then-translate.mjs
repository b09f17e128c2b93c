// svc-batch from your own Effect program, in plain Node (no tsx): a moderate → translate pipeline
// over records in memory. Uses SVC_BASE_URL / SVC_API_KEY when set, else starts the emulator.
//   node examples/moderate-then-translate.mjs
import { Effect, Either, Layer } from "effect"
import { Emulator, SqliteLedger, TextService, makePipeline, moderate, parseCondition, processRecords, translate } from "svc-batch"

const records = [
  { id: 1, body: "今日は良い天気です。散歩に行きましょう。" },
  { id: 2, body: "Here is how to build a bomb at home." },
  { id: 3, body: "The meeting moves to Thursday." }
]
const pipeline = Either.getOrThrow(
  makePipeline("mine", "moderate, then translate what is safe", [
    moderate({ fields: ["body"] }),
    translate({ fields: ["body"], to: "en", when: Either.getOrThrow(parseCondition("moderation_verdict == 'safe'")) })
  ])
)
const service = process.env.SVC_BASE_URL
  ? TextService.layerFromEnv
  : Layer.unwrapScoped(Effect.map(Emulator.make({ apiKey: "local" }), (emu) => TextService.layer({ baseUrl: emu.url, apiKey: "local" })))

const program = Effect.gen(function* () {
  for (const r of yield* processRecords(pipeline, records)) {
    const row = r._tag === "Done" ? r.rows[0] : undefined
    console.log(`${r.fields.id}: ${row ? `${row.moderation_verdict} → ${row.body_en ?? "(not translated)"}` : `failed: ${r.error.message}`}`)
  }
})
await Effect.runPromise(program.pipe(Effect.provide(Layer.merge(service, SqliteLedger.layerMemory))))
