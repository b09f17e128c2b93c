/** The HTTP layer under TextService loads undici on the first request, not when it is built. */
import { describe, expect, it } from "@effect/vitest"
import { vi } from "vitest"
import { Effect, Layer } from "effect"
import { TextService } from "../../src/service/client.ts"
import { clientLayer } from "../helpers.ts"

const loads = vi.hoisted(() => ({ count: 0 }))
vi.mock("../../src/service/http-undici.ts", async (importOriginal) => {
  loads.count++
  return await importOriginal()
})

describe("httpClientLayer", () => {
  it.scopedLive("builds without loading undici, and loads it once for concurrent first requests", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(clientLayer())
      const svc = yield* Effect.provide(TextService, context)
      expect(loads.count).toBe(0)
      const answers = yield* Effect.all(
        Array.from({ length: 4 }, (_, i) =>
          svc.chat({ model: "svc3-guard", messages: [{ role: "user", content: `text ${i}` }] })
        ),
        { concurrency: 4 }
      )
      expect(answers).toHaveLength(4)
      expect(loads.count).toBe(1)
    })
  )
})
