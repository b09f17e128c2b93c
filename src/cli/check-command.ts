/**
 * `svc-batch check [<job-file>] [--json]`: one minimal valid request per endpoint and model the job
 * needs (every endpoint without a job) against the configured service, each reported as ok or with
 * what went wrong — 401 (the key was refused), 404 (the base URL is wrong), 429, 5xx, a timeout, no
 * connection — and its latency. Exit 0 only when every one passed: what a cron wrapper runs before
 * a night's job. The key is never printed.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { JobContext, jobContext } from "../job/job-context.ts"
import { TextService } from "../service/client.ts"
import type { Endpoint, ServiceError } from "../service/errors.ts"
import { Models } from "../service/limits.ts"
import { describeEndpoint, serviceLayer, ServiceEndpoint } from "./endpoint.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { done, ending, Outcome } from "./outcome.ts"

export interface Probe {
  readonly endpoint: Endpoint
  readonly model: string
}

export interface ProbeResult extends Probe {
  readonly ok: boolean
  /** `ok`, or the cause in a few words (`401 key refused`, `404 wrong URL`, …). */
  readonly outcome: string
  readonly detail?: string
  readonly ms: number
}

/** Every endpoint, with the spec's models: what `check` asks without a job. */
export const allProbes: ReadonlyArray<Probe> = [
  { endpoint: "chat", model: Models.chat },
  { endpoint: "chat", model: Models.guard },
  { endpoint: "rerank", model: Models.rerank },
  { endpoint: "embeddings", model: Models.embedding },
  { endpoint: "translate", model: "translate" }
]

/** A failure in a few words an operator can act on. */
export const outcomeOf = (e: ServiceError): { readonly outcome: string; readonly detail: string } => {
  switch (e._tag) {
    case "UnauthorizedError":
      return {
        outcome: "401 key refused",
        detail: "the service refused SVC_API_KEY: check the key (it is not shown here)"
      }
    case "NotFoundError":
      return {
        outcome: "404 wrong URL",
        detail: "the endpoint does not exist at SVC_BASE_URL: give the base URL without /v1 (e.g. https://host)"
      }
    case "RateLimitedError":
      return { outcome: "429 rate limited", detail: "the key works but is over its rate limit right now" }
    case "ServerError":
      return { outcome: `${e.status} server error`, detail: e.message }
    case "TimeoutError":
      return { outcome: "timeout", detail: e.message }
    case "TransportError":
      return { outcome: "no connection", detail: e.message }
    case "BadRequestError":
      return { outcome: "400 bad request", detail: `${e.message} (is the model available to this key?)` }
    default:
      return { outcome: e._tag, detail: e.message }
  }
}

const ask = (svc: TextService, probe: Probe): Effect.Effect<unknown, ServiceError> => {
  switch (probe.endpoint) {
    case "chat":
      return svc.chat({ model: probe.model, messages: [{ role: "user", content: "ping" }], max_completion_tokens: 8 })
    case "rerank":
      return svc.rerank({ model: probe.model, query: "ping", documents: ["ping"] })
    case "embeddings":
      return svc.embed({ model: probe.model, input: "ping", task_type: "RETRIEVAL_QUERY" })
    case "translate":
      return svc.translate({ text: "ping", source_lang: "en", target_lang: "ja" })
  }
}

export const runProbe = (svc: TextService, probe: Probe): Effect.Effect<ProbeResult> =>
  Effect.gen(function* () {
    const t0 = performance.now()
    const result = yield* Effect.either(ask(svc, probe))
    const ms = Math.round(performance.now() - t0)
    return result._tag === "Right"
      ? { ...probe, ok: true, outcome: "ok", ms }
      : { ...probe, ok: false, ...outcomeOf(result.left), ms }
  })

const unique = (probes: ReadonlyArray<Probe>) => [
  ...new Map(probes.map((p) => [`${p.endpoint} ${p.model}`, p])).values()
]

export const checkCommand = Command.make(
  "check",
  {
    job: jobFileArg.pipe(Args.withDescription("check what this job needs (default: every endpoint)"), Args.optional),
    json: Options.boolean("json").pipe(Options.withDescription("one JSON object per probe"))
  },
  ending((o) =>
    Effect.gen(function* () {
      // A job that `run` would refuse before any request is refused here too, before probing.
      const context = Option.isSome(o.job)
        ? yield* JobContext.pipe(Effect.provide(jobContext(o.job.value, { inputMustExist: false, checked: true })))
        : undefined
      const job = context?.job
      const pipeline = context?.pipeline
      const probes = pipeline === undefined ? allProbes : unique(pipeline.stages.flatMap((s) => s.calls))
      const layer = serviceLayer(job?.job.emulator ?? {}, { serviceRequired: job?.job.service === "required" })
      const results = yield* Effect.gen(function* () {
        const endpoint = yield* ServiceEndpoint
        if (!o.json) yield* Console.log(`svc-batch check${job ? ` ${job.name}` : ""} — ${describeEndpoint(endpoint)}`)
        const svc = yield* TextService
        return yield* Effect.forEach(probes, (p) => runProbe(svc, p))
      }).pipe(Effect.provide(layer))
      for (const r of results) {
        if (o.json) yield* Console.log(JSON.stringify(r))
        else
          yield* Console.log(
            `  ${r.ok ? "ok  " : "FAIL"}  ${r.endpoint.padEnd(10)} ${r.model.padEnd(15)} ${String(r.ms).padStart(5)} ms  ${r.ok ? "" : `${r.outcome}: ${r.detail}`}`.trimEnd()
          )
      }
      const failed = results.filter((r) => !r.ok).length
      if (!o.json)
        yield* Console.log(failed === 0 ? `all ${results.length} passed` : `${failed} of ${results.length} failed`)
      return failed > 0 ? Outcome.CheckFailed() : done
    })
  )
).pipe(
  Command.withDescription(
    "Send one minimal request per endpoint and model the job needs (all without a job) and report ok, 401, 404, 429, 5xx or timeout with latency; exit 0 only when all pass. Example: svc-batch check jobs/nightly.yaml && svc-batch run jobs/nightly.yaml"
  )
)
