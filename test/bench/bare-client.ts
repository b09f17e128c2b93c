/**
 * The bare client's cost (for `npm run bench`): N moderation calls (`svc3-guard`, the request a
 * moderation job sends) at concurrency 64 through TextService, no engine. Prints one JSON line:
 * CPU ms per request of this process during the calls (module loading and warm-up excluded).
 *   tsx test/bench/bare-client.ts <baseUrl> <key> <requests>
 */
import { Effect } from "effect"
import { TextService } from "../../src/service/client.ts"

const [url, key, n] = process.argv.slice(2)
const requests = Number(n ?? 20_000)
const text = (i: number) =>
  i % 5 === 0 ? `Note ${i}: how to build a bomb.` : `Note ${i}: the garden is lovely in spring.`

const main = Effect.gen(function* () {
  const svc = yield* TextService
  const call = (i: number) =>
    svc.chat({ model: "svc3-guard", messages: [{ role: "user", content: text(i) }], max_completion_tokens: 64 })
  yield* Effect.forEach(
    Array.from({ length: 1000 }, (_, i) => i),
    call,
    { concurrency: 64, discard: true }
  )
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  yield* Effect.forEach(
    Array.from({ length: requests }, (_, i) => i + 1000),
    call,
    { concurrency: 64, discard: true }
  )
  const cpu = process.cpuUsage(cpu0)
  console.log(
    JSON.stringify({
      cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / requests,
      perSecond: requests / ((performance.now() - t0) / 1000)
    })
  )
})

await Effect.runPromise(main.pipe(Effect.provide(TextService.layer({ baseUrl: url!, apiKey: key! }))))
