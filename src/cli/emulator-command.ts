/** `svc-batch emulator`: the emulator as a standalone server for other tools and drills. */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { Emulator } from "../emulator/emulator.ts"
import type { EmulatorOptions } from "../emulator/options.ts"
import { ConfigError } from "./endpoint.ts"

/** `3000` (every model) or `svc3-mini=600,svc3-guard=3000,*=1000`. */
export const parseRpm = (text: string): number | Record<string, number> => {
  if (/^\d+$/.test(text.trim())) return Number(text)
  const out: Record<string, number> = {}
  for (const part of text.split(",")) {
    const [model, value] = part.split("=").map((s) => s.trim())
    if (!model || !value || !/^\d+$/.test(value)) throw new Error(`--rpm: expected N or model=N,... but got ${JSON.stringify(part)}`)
    out[model] = Number(value)
  }
  return out
}

const rate = (name: string, what: string) =>
  Options.float(name).pipe(Options.withDescription(what), Options.withDefault(0))

export const emulatorOptions = {
  port: Options.integer("port").pipe(Options.withDescription("port (0 picks a free one)"), Options.withDefault(8787)),
  host: Options.text("host").pipe(Options.withDescription("address to bind"), Options.withDefault("127.0.0.1")),
  apiKey: Options.text("api-key").pipe(
    Options.withDescription("the key requests must carry; without it any non-empty bearer token passes"),
    Options.optional
  ),
  rpm: Options.text("rpm").pipe(Options.withDescription("requests per minute: N, or model=N,... (* for the rest)"), Options.optional),
  burst: Options.integer("burst").pipe(Options.withDescription("rate-limit burst (default: one second's worth)"), Options.optional),
  latencyMs: Options.integer("latency-ms").pipe(Options.withDescription("fixed latency per answer"), Options.withDefault(0)),
  jitterMs: Options.integer("jitter-ms").pipe(Options.withDescription("uniform jitter ± around the latency"), Options.withDefault(0)),
  error500Rate: rate("error-500-rate", "fraction of requests answered 500"),
  error503Rate: rate("error-503-rate", "fraction of requests answered 503"),
  resetRate: rate("reset-rate", "fraction of connections reset before an answer"),
  cutStreamRate: rate("cut-stream-rate", "fraction of streams cut before data: [DONE]"),
  slowRate: rate("slow-rate", "fraction of answers delayed by --slow-ms"),
  slowMs: Options.integer("slow-ms").pipe(Options.withDescription("extra delay of a slow answer"), Options.withDefault(5000)),
  faultSeed: Options.integer("fault-seed").pipe(Options.withDescription("seed of fault decisions"), Options.withDefault(1))
}

type Parsed = {
  readonly [K in keyof typeof emulatorOptions]: (typeof emulatorOptions)[K] extends Options.Options<infer A> ? A : never
}

export const toEmulatorOptions = (o: Parsed): EmulatorOptions => ({
  port: o.port,
  host: o.host,
  ...Option.match(o.apiKey, { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) }),
  ...Option.match(o.rpm, { onNone: () => ({}), onSome: (rpm) => ({ rpm: parseRpm(rpm) }) }),
  ...Option.match(o.burst, { onNone: () => ({}), onSome: (burst) => ({ burst }) }),
  latencyMs: o.latencyMs,
  jitterMs: o.jitterMs,
  error500Rate: o.error500Rate,
  error503Rate: o.error503Rate,
  resetRate: o.resetRate,
  cutStreamRate: o.cutStreamRate,
  slowRate: o.slowRate,
  slowMs: o.slowMs,
  faultSeed: o.faultSeed
})

export const emulatorCommand = Command.make("emulator", emulatorOptions, (o) =>
  Effect.scoped(
    Effect.gen(function* () {
      const options = yield* Effect.try({ try: () => toEmulatorOptions(o), catch: (e) => new ConfigError({ detail: (e as Error).message }) })
      const emu = yield* Emulator.make(options)
      yield* Console.log(`listening on ${emu.url}`)
      yield* Console.error("svc-batch emulator: deterministic stand-in of the text service (not the real service). Ctrl-C stops it.")
      return yield* Effect.never
    })
  )
).pipe(Command.withDescription("Run the emulator of the text service as a standalone HTTP server"))
