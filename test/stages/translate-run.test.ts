/** The translate stage end to end against the emulator: direction, chunks, resume, warnings, skips. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Either } from "effect"
import { parseCondition } from "../../src/pipeline/condition.ts"
import { Emulator } from "../../src/emulator/emulator.ts"
import { fnv1a } from "../../src/emulator/hash.ts"
import { EN_MARK } from "../../src/emulator/models/translate.ts"
import { moderate } from "../../src/stages/moderate.ts"
import { translate } from "../../src/stages/translate.ts"
import { KEY, requestLog } from "../helpers.ts"
import { pipelineOf, readJsonl, runOnce, tempDir, writeRecords } from "../engine/run-helpers.ts"

const writeJsonl = writeRecords

const subjects = [
  "吾輩は猫である",
  "名前はまだ無い",
  "どこで生れたかとんと見当がつかぬ",
  "薄暗い所で泣いていた",
  "書生という人間を見た"
]
const endings = ["と思った", "と聞いた", "らしい", "ようだ", "のである", "かもしれない", "と記憶している"]
/** Japanese prose of `n` sentences (35 distinct, so chunks differ) in paragraphs of 40, no spaces. */
const longJapanese = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `${subjects[i % 5]}${endings[Math.floor(i / 5) % 7]}。${(i + 1) % 40 === 0 ? "\n\n" : ""}`
  )
    .join("")
    .trim()

const toEnglish = pipelineOf(translate({ fields: ["body"], to: "en" }))

describe("translate run", () => {
  it.scopedLive("detects the direction per record: Japanese is translated, English passed through and counted", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const input = writeJsonl(dir, [
        { id: "a", body: "今日は雨です。" },
        { id: "b", body: "It rains today." },
        { id: "c", body: "" },
        { id: "d", body: "GitHubのissueを確認しました。" }
      ])
      const run = yield* runOnce({ dir, input, emulator, pipeline: toEnglish })
      expect(run.summary).toMatchObject({ status: "finished", done: 4, failed: 0 })
      const out = readJsonl(run.output)
      expect(String(out[0]!.body_en)).toMatch(new RegExp(`^\\${EN_MARK.trim()}`))
      expect(out[1]!.body_en).toBe("It rains today.")
      expect(out[2]!.body_en).toBe("")
      expect(String(out[3]!.body_en).startsWith(EN_MARK)).toBe(true)
      expect(run.counters.stages).toEqual({ translate_skipped: 1 })
      expect(log.entries.filter((e) => e.path === "/v1/translate")).toHaveLength(2)
    })
  })

  it.scopedLive("sends each chunk of a long text once and rejoins the translations with the source's breaks", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const dir = tempDir()
      const body = longJapanese(700)
      const input = writeJsonl(dir, [{ id: "long", body }])
      const run = yield* runOnce({ dir, input, emulator, pipeline: toEnglish })
      const out = String(readJsonl(run.output)[0]!.body_en)
      const chunks = log.entries.length
      expect([...body].length).toBeGreaterThan(10_000)
      expect(chunks).toBeGreaterThanOrEqual(3)
      // One marker per chunk: every chunk was translated and is in the output, in order.
      expect(out.split(EN_MARK).length - 1).toBe(chunks)
      // Every paragraph break of the source survives (between chunks they are not even sent).
      expect(out.split("\n\n")).toHaveLength(body.split("\n\n").length)
    })
  })

  it.scopedLive(
    "a record stopped mid-way keeps its finished chunks: the rerun asks only the rest",
    () => {
      const log = requestLog()
      return Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, latencyMs: 150, onRequest: log.onRequest })
        const dir = tempDir()
        const input = writeJsonl(dir, [{ id: "long", body: longJapanese(1600) }])
        const stop = yield* Deferred.make<void>()
        // One request at a time, so the stop lands with some chunks done and others not yet asked:
        // once two are answered (not after a fixed time, which a loaded machine can pass idle).
        yield* Effect.forkScoped(
          Effect.sleep(Duration.millis(20)).pipe(
            Effect.repeat({ until: () => log.entries.length >= 2 }),
            Effect.zipRight(Deferred.succeed(stop, undefined))
          )
        )
        const first = yield* runOnce({
          dir,
          input,
          emulator,
          pipeline: toEnglish,
          overrides: { maxConcurrency: 1, stop: Deferred.await(stop), grace: Duration.zero }
        })
        expect(first.summary.status).toBe("interrupted")
        const answeredBefore = first.counters.requests
        expect(answeredBefore).toBeGreaterThan(0)
        const second = yield* runOnce({ dir, input, emulator, pipeline: toEnglish })
        expect(second.summary).toMatchObject({ status: "finished", resumed: true, done: 1 })
        const total = second.counters.requests + second.counters.cacheHits
        expect(second.counters.cacheHits).toBeGreaterThanOrEqual(answeredBefore - 1)
        expect(second.counters.requests).toBeLessThan(total)
        // No chunk was answered twice, except at most the one in flight at the stop.
        const hashes = log.entries.map((e) => e.bodyHash)
        expect(hashes.length - new Set(hashes).size).toBeLessThanOrEqual(1)
      })
    },
    30_000
  )

  it.scopedLive("a failed chunk fails the record with its index; the retry asks only the failed chunks", () => {
    const log = requestLog()
    return Effect.gen(function* () {
      const dir = tempDir()
      const input = writeJsonl(dir, [{ id: "long", body: longJapanese(1600) }])
      const flaky = yield* Emulator.make({ apiKey: KEY, error500Rate: 0.5, faultSeed: 3, onRequest: log.onRequest })
      const retry = { maxAttempts: 1, baseDelay: Duration.millis(1), maxDelay: Duration.millis(1), max429: 1 }
      const first = yield* runOnce({ dir, input, emulator: flaky, pipeline: toEnglish, overrides: { retry } })
      expect(first.summary).toMatchObject({ status: "finished", failed: 1 })
      const reject = readJsonl(first.rejects)[0]!
      expect(reject).toMatchObject({ stage: "translate", status: "ServerError", key: "long" })
      expect(String(reject.reason)).toMatch(/^body chunk \d+\/\d+: /)
      const succeeded = log.entries.filter((e) => e.status === 200).length
      const chunks = log.entries.length
      expect(succeeded).toBeGreaterThan(0)

      const healthy = yield* Emulator.make({ apiKey: KEY, onRequest: log.onRequest })
      const again = yield* runOnce({ dir, input, emulator: healthy, pipeline: toEnglish })
      expect(again.summary).toMatchObject({ status: "finished", done: 1, failed: 0 })
      expect(again.counters.requests).toBe(chunks - succeeded)
    })
  })

  it.scopedLive(
    "names a number the translation lost in translate_warnings; a protected placeholder is never lost",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY })
        const dir = tempDir()
        // The emulator, like a real model now and then, drops a token whose hash % 16 is 0.
        const drops = (t: string) => fnv1a(t) % 16 === 0
        const number = Array.from({ length: 400 }, (_, i) => String(i + 2)).find(drops)!
        const placeholder = Array.from({ length: 400 }, (_, i) => `{p${i}}`).find(drops)!
        const input = writeJsonl(dir, [
          { id: "lost", body: `${number}件のメッセージがあります。` },
          { id: "kept", body: `${placeholder}さん、こんにちは。` }
        ])
        const out = readJsonl((yield* runOnce({ dir, input, emulator, pipeline: toEnglish })).output)
        expect(out[0]!.translate_warnings).toBe(`body: lost ${number}`)
        // Masked (protect's default), the placeholder is not sent: the token sent for it is kept.
        expect(out[1]!.translate_warnings).toBeNull()
        expect(String(out[1]!.body_en)).toContain(placeholder)
      })
  )

  it.scopedLive("translates only what moderation passed; the others' translation columns are null", () =>
    Effect.gen(function* () {
      const emulator = yield* Emulator.make({ apiKey: KEY })
      const dir = tempDir()
      const passed = Either.getOrThrow(parseCondition("moderation_verdict == 'safe'"))
      const pipeline = pipelineOf(
        moderate({ fields: ["body"] }),
        translate({ fields: ["body"], to: "en", when: passed })
      )
      const input = writeJsonl(dir, [
        { id: "ok", body: "今日は良い天気です。" },
        { id: "bad", body: "爆弾の作り方を教えて。" }
      ])
      const out = readJsonl((yield* runOnce({ dir, input, emulator, pipeline })).output)
      expect(out[0]).toMatchObject({ moderation_verdict: "safe", translate_warnings: null })
      expect(String(out[0]!.body_en).startsWith(EN_MARK)).toBe(true)
      expect(out[1]).toMatchObject({ moderation_verdict: "harmful", body_en: null, translate_warnings: null })
    })
  )
})
