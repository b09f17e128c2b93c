/**
 * The engine's own CPU per record (not a test), with no network: a TextService whose chat answers a
 * valid verdict on the next event-loop turn. Three layers, each in this process, after a warm-up:
 * - client: TextService.chat at concurrency 64 (the fake: what is left is Effect's and ours);
 * - ask: the answer cache (ledger lookup and write, the dispatcher: limiter, retry, breaker) per request;
 * - records: `processRecords` (the fold, the in-flight bound) with 64 and with 256 records in
 *   progress (the default, 256, parks the records beyond the 64 request slots in the limiter's line).
 *   npm run bench:overhead [-- 30000]
 */
import { Effect, Either, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeAnswerCache } from "../../src/engine/records/answer-cache.ts"
import { processRecords } from "../../src/engine/records/in-memory-run.ts"
import { defaultRetryPolicy, makeDispatcher } from "../../src/engine/flow/dispatcher.ts"
import { RunStats } from "../../src/engine/run-stats.ts"
import { makePipeline, type Prepared } from "../../src/pipeline/stage.ts"
import { Ledger } from "../../src/ledger/ledger.ts"
import { SqliteLedger } from "../../src/ledger/sqlite-ledger.ts"
import { TextService } from "../../src/service/client.ts"
import { formatVerdict } from "../../src/service/moderation.ts"
import { moderate } from "../../src/stages/moderate.ts"

const n = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 30_000)
let salt = 0
const text = (i: number) => `Note ${salt} ${i}: the garden is lovely in spring.`
const nextTurn = <A>(a: A) => Effect.async<A>((resume) => void setImmediate(() => resume(Effect.succeed(a))))
const completion = (model: string) => ({
  id: "c",
  object: "chat.completion",
  created: 0,
  model,
  choices: [
    { index: 0, message: { role: "assistant", content: formatVerdict([]), tool_calls: [] }, finish_reason: "stop" }
  ],
  usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 }
})
// The moderation stage calls only `chat`; any other operation would die naming itself.
const fakeService = TextService.layerTest({ chat: (input) => nextTurn(completion(input.model)) })
const pipeline = Either.getOrThrow(
  makePipeline("overhead", "moderation, fake service", [moderate({ fields: ["text"] })])
)
const rpm = { "*": 1_000_000_000 }
const indices = (from: number, count: number) => Array.from({ length: count }, (_, i) => i + from)

const measure = <R>(name: string, run: (from: number, count: number) => Effect.Effect<unknown, unknown, R>) =>
  Effect.gen(function* () {
    salt++
    yield* run(0, 2000)
    const c0 = process.cpuUsage()
    yield* run(2000, n)
    const c = process.cpuUsage(c0)
    console.log(`${name.padEnd(34)} ${((c.user + c.system) / n).toFixed(1).padStart(7)} CPU µs/record`)
  })

const main = Effect.gen(function* () {
  const svc = yield* TextService
  const ledger = yield* Ledger
  const stage = pipeline.stages[0]!
  const stats = new RunStats()
  const dispatcher = yield* makeDispatcher({ rpm, maxConcurrency: 64, retry: defaultRetryPolicy }, stats)
  const cache = yield* makeAnswerCache(ledger, stats, { cache: "read-write" }, 0, dispatcher)
  yield* measure("client (fake service), 64 at once", (from, count) =>
    Effect.forEach(
      indices(from, count),
      (i) =>
        svc.chat({ model: "svc3-guard", messages: [{ role: "user", content: text(i) }], max_completion_tokens: 64 }),
      { concurrency: 64, discard: true }
    )
  )
  for (const concurrency of [64, 256]) {
    yield* measure(`answer cache, ${concurrency} at once`, (from, count) =>
      Effect.forEach(
        indices(from, count),
        (i) =>
          Effect.suspend(() => {
            const r = (stage.prepare({ text: text(i) }) as Prepared).requests[0]!
            return cache.ask(r, cache.keyOf(r))
          }),
        { concurrency, discard: true }
      )
    )
  }
  for (const records of [64, 256]) {
    yield* measure(`records, ${records} in progress`, (from, count) =>
      processRecords(
        pipeline,
        indices(from, count).map((i) => ({ id: `r${i}`, text: text(i) })),
        { records, concurrency: 64, rpm }
      )
    )
  }
})

const dir = mkdtempSync(join(tmpdir(), "svc-overhead-"))
console.log(`${n.toLocaleString("en")} records per row; ${process.version}`)
await Effect.runPromise(
  Effect.scoped(main).pipe(
    Effect.provide(Layer.merge(fakeService, SqliteLedger.layer({ path: join(dir, "ledger.sqlite") })))
  )
)
rmSync(dir, { recursive: true, force: true })
