/** The TextService test layer: given operations answer, the others die naming themselves. */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Stream } from "effect"
import { TextService } from "../../src/service/client.ts"

describe("TextService.layerTest", () => {
  it.effect("answers with the operations it was given, and dies naming any other one", () =>
    Effect.gen(function* () {
      const svc = yield* TextService
      expect(yield* svc.translate({ text: "hi", source_lang: "en", target_lang: "ja" })).toEqual({
        translated_text: "やあ"
      })
      const moderated = yield* Effect.exit(svc.moderate("hi"))
      expect(Exit.isFailure(moderated) && Cause.pretty(moderated.cause)).toContain(
        "TextService.moderate is not implemented by this test service"
      )
      const streamed = yield* Effect.exit(Stream.runDrain(svc.chatStream({ model: "m", messages: [] })))
      expect(Exit.isFailure(streamed) && Cause.isDie(streamed.cause) && Cause.pretty(streamed.cause)).toContain(
        "TextService.chatStream is not implemented"
      )
    }).pipe(Effect.provide(TextService.layerTest({ translate: () => Effect.succeed({ translated_text: "やあ" }) })))
  )
})
