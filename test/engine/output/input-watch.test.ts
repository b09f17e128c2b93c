/** The input watched while its records are processed: a changed file stops the run, a touched one does not. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { appendFileSync, utimesSync } from "node:fs"
import { makeInputGuard } from "../../../src/engine/output/input-guard.ts"
import { watchInput } from "../../../src/engine/output/input-watch.ts"
import { fingerprintFile } from "../../../src/io/fingerprint.ts"
import { tempDir, writeCorpus } from "../run-helpers.ts"

const watched = (records: number) =>
  Effect.gen(function* () {
    const input = writeCorpus(tempDir(), records)
    const { fingerprint } = yield* Effect.promise(() => fingerprintFile(input))
    const watch = yield* watchInput(makeInputGuard(input, fingerprint), "10 millis")
    return { input, watch }
  })

describe("input watch", () => {
  it.scopedLive("a file appended to: the watch completes with InputChanged naming the file", () =>
    Effect.gen(function* () {
      const { input, watch } = yield* watched(20)
      appendFileSync(input, `${JSON.stringify({ id: "late", text: "written during the run" })}\n`)
      yield* watch.changed.pipe(Effect.timeout("5 seconds"))
      expect(watch.failure()?.message).toContain(
        `${input} changed during the run (its content is not what this run read`
      )
    })
  )

  it.scopedLive("a file only touched (same bytes, a new mtime): hashed again, the run goes on", () =>
    Effect.gen(function* () {
      const { input, watch } = yield* watched(20)
      utimesSync(input, new Date(), new Date(Date.now() + 60_000))
      const seen = yield* watch.changed.pipe(Effect.timeout("300 millis"), Effect.option)
      expect(seen._tag).toBe("None")
      expect(watch.failure()).toBeUndefined()
    })
  )
})
