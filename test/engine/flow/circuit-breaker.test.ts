/**
 * The circuit breaker counts what no record can fix — here, 2xx answers that are not the API's
 * wire shape — and never the service's own answers (structured output off its schema, verdicts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { Emulator } from "../../../src/emulator/emulator.ts"
import { makeCircuitBreaker } from "../../../src/engine/flow/circuit-breaker.ts"
import { type ErrorLike, RequestFailed } from "../../../src/engine/flow/retry.ts"
import {
  ModerationParseError,
  ResponseDecodeError,
  StructuredOutputError,
  TimeoutError,
  TransportError
} from "../../../src/service/errors.ts"
import { generate } from "../../../src/stages/generate.ts"
import { KEY } from "../../helpers.ts"
import { pipelineOf, runOnce, tempDir, writeRecords } from "../run-helpers.ts"

const failedWith = (e: ErrorLike) => new RequestFailed({ detail: e.message, attempts: 1, cause: e })

describe("circuit breaker", () => {
  it("ten 2xx answers in a row that are not the API's JSON trip it, naming SVC_BASE_URL", () => {
    const breaker = makeCircuitBreaker(10, "https://www.example.com")
    const page = failedWith(
      new ResponseDecodeError({ endpoint: "chat", detail: "200 text/html: '<!doctype html>…' is not JSON" })
    )
    for (let i = 0; i < 9; i++) expect(breaker.failed(page)).toBeUndefined()
    expect(breaker.failed(page)).toBe(
      "10 answers in a row were 2xx but not the service's JSON (200 text/html: '<!doctype html>…' is not JSON) — SVC_BASE_URL https://www.example.com does not look like the text service's API: it is the service's root, e.g. https://host (without /v1), not a web page or a proxy's"
    )
  })

  it("reads the error's systemic field, not its class name", () => {
    const breaker = makeCircuitBreaker(3)
    const renamed = { _tag: "SomeRenamedError", message: "connection refused", systemic: true }
    expect(breaker.failed(failedWith(renamed))).toBeUndefined()
    expect(breaker.failed(failedWith(renamed))).toBeUndefined()
    expect(breaker.failed(failedWith(renamed))).toContain("3 requests in a row failed")
  })

  it("words its advice from the error's outage field, not its class name", () => {
    const breaker = makeCircuitBreaker(2)
    const renamed = {
      _tag: "SomeRenamedError",
      message: "no answer in 30s",
      systemic: true,
      outage: "timeout"
    } as const
    expect(breaker.failed(failedWith(renamed))).toBeUndefined()
    expect(breaker.failed(failedWith(renamed))).toBe(
      "2 requests in a row timed out (no answer in 30s): the service is not answering; check its status, or raise SVC_TIMEOUT_MS"
    )
  })

  it("a streak is of one kind of outage: another kind starts it over", () => {
    const breaker = makeCircuitBreaker(3)
    const timeout = failedWith(new TimeoutError({ endpoint: "chat", after: Duration.seconds(30) }))
    const refused = failedWith(new TransportError({ endpoint: "chat", detail: "connection refused" }))
    expect([timeout, timeout, refused, refused].map((e) => breaker.failed(e))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined
    ])
    expect(breaker.failed(refused)).toContain("3 requests in a row could not reach the service (transport error")
  })

  it("the service's own answers (off their schema, an unparseable verdict) never count", () => {
    const offSchema = failedWith(
      new StructuredOutputError({ raw: "{}", detail: "/ must have required property 'code'" })
    )
    const verdict = failedWith(new ModerationParseError({ raw: "maybe", detail: "neither 安全 nor 有害" }))
    for (const answer of [offSchema, verdict]) {
      const breaker = makeCircuitBreaker(10, "https://svc.example")
      for (let i = 0; i < 50; i++) expect(breaker.failed(answer)).toBeUndefined()
    }
  })

  // The answers are the API's wire shape whose content misses the schema: they must not be taken
  // for a page at a wrong URL (the stage validates them, not the client's decoding).
  it.scopedLive(
    "a run whose every json_schema answer misses its schema (--nonconforming-rate 1) finishes, its records failed, not aborted",
    () =>
      Effect.gen(function* () {
        const emulator = yield* Emulator.make({ apiKey: KEY, nonconformingRate: 1 })
        const dir = tempDir()
        const input = writeRecords(
          dir,
          Array.from({ length: 30 }, (_, i) => ({ id: `r${i}`, body: `Order ${100000 + i} arrived.` }))
        )
        const schema = {
          type: "object",
          properties: { code: { type: "string", pattern: "^[0-9]{6}$" } },
          required: ["code"]
        }
        const stage = generate({
          prompt: "Order code in: {{body}}",
          response_format: { type: "json_schema", name: "code", schema },
          validationAttempts: 1
        })
        if (typeof stage === "string") throw new Error(stage)
        const run = yield* runOnce({
          dir,
          input,
          emulator,
          pipeline: pipelineOf(stage),
          overrides: { recordConcurrency: 4, maxConcurrency: 4 }
        })
        expect(run.summary).toMatchObject({ status: "finished", done: 0, failed: 30 })
      })
  )
})
