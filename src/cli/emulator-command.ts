/** `svc-batch emulator`: the emulator as a standalone server for other tools and drills. */
import { withDefaultShown } from "./option-default.ts"
import { Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option, ParseResult, Schema } from "effect"
import { decodeKnobs, type Knob, type KnobName, knobs } from "../emulator/knobs.ts"
import type { EmulatorOptions } from "../emulator/options.ts"
import { parseRpm } from "../job/rpm.ts"
import { ConfigError } from "./endpoint.ts"

/** One flag per knob, derived from the knob table (name, description, default). */
const knobOption = (k: Knob<unknown>): Options.Options<unknown> => {
  const base =
    k.kind === "rpm" ? Options.text(k.flag) : k.kind === "int" ? Options.integer(k.flag) : Options.float(k.flag)
  const described = (base as Options.Options<unknown>).pipe(Options.withDescription(k.description))
  return k.default !== undefined ? described.pipe(withDefaultShown(k.default)) : described.pipe(Options.optional)
}

const knobOptions = Object.fromEntries(
  Object.entries(knobs).map(([name, k]) => [name, knobOption(k as Knob<unknown>)])
) as Record<KnobName, Options.Options<unknown>>

/** A TCP port; 0 asks the system for a free one. */
const Port = Schema.Int.pipe(Schema.between(0, 65535, { message: () => "a port from 0 to 65535 (0 picks a free one)" }))

export const emulatorOptions = {
  port: Options.integer("port").pipe(Options.withDescription("port (0 picks a free one)"), withDefaultShown(8787)),
  host: Options.text("host").pipe(Options.withDescription("address to bind"), withDefaultShown("127.0.0.1")),
  apiKey: Options.text("api-key").pipe(
    Options.withDescription("the key requests must carry; without it any non-empty bearer token passes"),
    Options.optional
  ),
  ...knobOptions
}

type Parsed = {
  readonly [K in keyof typeof emulatorOptions]: (typeof emulatorOptions)[K] extends Options.Options<infer A> ? A : never
}

/** Flags → emulator options, every knob checked against its Schema (a bad one named by its flag). */
export const toEmulatorOptions = (o: Parsed): EmulatorOptions => {
  const raw: Record<string, unknown> = {}
  for (const name of Object.keys(knobs) as Array<KnobName>) {
    const value: unknown = o[name]
    const given = Option.isOption(value) ? Option.getOrUndefined(value) : value
    if (given !== undefined) raw[name] = knobs[name].kind === "rpm" ? parseRpm(String(given)) : given
  }
  const decoded = decodeKnobs(raw, (name) => `--${knobs[name].flag}`)
  if (decoded._tag === "Left") throw new Error(decoded.left)
  const port = Schema.decodeUnknownEither(Port)(o.port)
  if (Either.isLeft(port))
    throw new Error(
      `--port: ${ParseResult.ArrayFormatter.formatErrorSync(port.left)[0]?.message ?? "invalid"}, got ${o.port}`
    )
  return {
    port: o.port,
    host: o.host,
    ...Option.match(o.apiKey, { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) }),
    ...decoded.right
  }
}

export const emulatorCommand = Command.make("emulator", emulatorOptions, (o) =>
  Effect.scoped(
    Effect.gen(function* () {
      const options = yield* Effect.try({
        try: () => toEmulatorOptions(o),
        catch: (e) => new ConfigError({ detail: (e as Error).message })
      })
      // The emulator's models (ajv, stopword, randexp: a fifth of the bundle) load only for this command.
      const { Emulator } = yield* Effect.promise(() => import("../emulator/emulator.ts"))
      // It says it is the emulator, with the knobs that change answers: clients key them so, not by port.
      const emu = yield* Emulator.make({ ...options, identify: true })
      yield* Console.log(`listening on ${emu.url}`)
      yield* Console.error(
        "svc-batch emulator: deterministic stand-in of the text service (not the real service). Ctrl-C stops it."
      )
      return yield* Effect.never
    })
  )
).pipe(
  Command.withDescription(
    "Run the emulator of the text service as a standalone HTTP server. Example: svc-batch emulator --port 8787 --rpm 3000 --error-503-rate 0.02"
  )
)
