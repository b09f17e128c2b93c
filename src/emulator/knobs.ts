/**
 * The emulator's operating knobs, declared once: each with its Schema (range), default, flag and
 * description. The job file's `emulator:` section (EmulatorKnobs), the `svc-batch emulator`
 * flags (cli/emulator-command.ts) and the emulator's own defaults all derive from this table.
 */
import { Either, ParseResult, Schema } from "effect"

const PositiveInt = Schema.Int.pipe(Schema.positive())
const Rate = Schema.Number.pipe(Schema.between(0, 1))
const Rpm = Schema.Union(PositiveInt, Schema.Record({ key: Schema.String, value: PositiveInt }))

export interface Knob<A> {
  /** The command-line flag, without `--`. */
  readonly flag: string
  readonly description: string
  /** How the flag is read: a whole number, a fraction, or the `N | model=N,…` rate syntax. */
  readonly kind: "int" | "float" | "rpm"
  /** any: Schema is invariant in its encoded type; the knobs are decoded from YAML/JSON or flags. */
  readonly schema: Schema.Schema<A, any>
  readonly default?: A
}

const knob = <A>(k: Knob<A>): Knob<A> => k

export const knobs = {
  rpm: knob({
    flag: "rpm",
    kind: "rpm",
    schema: Rpm,
    description: "requests per minute: N, or model=N,... (* for the rest)"
  }),
  burst: knob({
    flag: "burst",
    kind: "int",
    schema: PositiveInt,
    description: "rate-limit burst (default: one second's worth)"
  }),
  latencyMs: knob({
    flag: "latency-ms",
    kind: "int",
    schema: Schema.NonNegativeInt,
    default: 0,
    description: "fixed latency per answer"
  }),
  jitterMs: knob({
    flag: "jitter-ms",
    kind: "int",
    schema: Schema.NonNegativeInt,
    default: 0,
    description: "uniform jitter ± around the latency"
  }),
  error500Rate: knob({
    flag: "error-500-rate",
    kind: "float",
    schema: Rate,
    default: 0,
    description: "fraction of requests answered 500"
  }),
  error503Rate: knob({
    flag: "error-503-rate",
    kind: "float",
    schema: Rate,
    default: 0,
    description: "fraction of requests answered 503"
  }),
  resetRate: knob({
    flag: "reset-rate",
    kind: "float",
    schema: Rate,
    default: 0,
    description: "fraction of connections reset before an answer"
  }),
  cutStreamRate: knob({
    flag: "cut-stream-rate",
    kind: "float",
    schema: Rate,
    default: 0,
    description: "fraction of streams cut before data: [DONE]"
  }),
  slowRate: knob({
    flag: "slow-rate",
    kind: "float",
    schema: Rate,
    default: 0,
    description: "fraction of answers delayed by --slow-ms"
  }),
  slowMs: knob({
    flag: "slow-ms",
    kind: "int",
    schema: Schema.NonNegativeInt,
    default: 5000,
    description: "extra delay of a slow answer"
  }),
  faultSeed: knob({
    flag: "fault-seed",
    kind: "int",
    schema: Schema.Int,
    default: 1,
    description: "seed of fault decisions"
  }),
  nonconformingRate: knob({
    flag: "nonconforming-rate",
    kind: "float",
    schema: Rate,
    default: 0,
    description:
      "fraction of json_schema answers made not to conform to their schema (drawn from the request and its seed)"
  })
} as const

export type KnobName = keyof typeof knobs
type KnobValue<K extends KnobName> = (typeof knobs)[K] extends Knob<infer A> ? A : never

/** Every knob optional: the job file's `emulator:` section and the emulator's options. */
export const EmulatorKnobs = Schema.Struct(
  Object.fromEntries(Object.entries(knobs).map(([name, k]) => [name, Schema.optional(k.schema)])) as {
    readonly [K in KnobName]: Schema.optional<Schema.Schema<KnobValue<K>, any>>
  }
)
export type EmulatorKnobs = typeof EmulatorKnobs.Type

/** A knob's value, or its default. */
export const knobValue = <K extends KnobName>(options: EmulatorKnobs, name: K): KnobValue<K> | undefined =>
  (options[name] as KnobValue<K> | undefined) ?? ((knobs[name] as Knob<unknown>).default as KnobValue<K> | undefined)

/** Decodes knobs from flags or a file; a problem names the knob the way `flagName` says. */
export const decodeKnobs = (
  input: unknown,
  flagName: (knob: KnobName) => string
): Either.Either<EmulatorKnobs, string> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(EmulatorKnobs, { onExcessProperty: "error", errors: "all" })(input),
    (error) =>
      ParseResult.ArrayFormatter.formatErrorSync(error)
        .map(
          (i) =>
            `${i.path.length > 0 && String(i.path[0]) in knobs ? flagName(i.path[0] as KnobName) : i.path.join(".")}: ${i.message}`
        )
        .join("; ")
  )
