/**
 * How a standalone emulator (`svc-batch emulator`) makes itself known to the client, so that its
 * answers are keyed as the emulator's, not by its URL: a port picked afresh (`--port 0`) or a
 * proxy in front must not turn every rerun cold. Every answer carries the header below, valued
 * with the fingerprint of the knobs that change a successful answer. Faults, latency and rate
 * limits do not (a 500 or a late answer stores nothing different); `--nonconforming-rate` does
 * (which json_schema answers are usable). An extra response header leaves the emulator faithful
 * to the spec (§2, §9: clients ignore what they do not know). Kept small: the client imports it.
 */
import { Either, Schema } from "effect"
import { type EmulatorKnobs, knobValue } from "./knobs.ts"

export const EmulatorHeader = "x-svc-emulator"

/** The knobs that change answers, as `flag=value` pairs joined by `;`. */
export const answerFingerprint = (knobs: EmulatorKnobs): string =>
  `nonconforming-rate=${knobValue(knobs, "nonconformingRate") ?? 0}`

/** The header's value on the wire: `flag=number` pairs, short. Anything else is not our emulator's. */
const Fingerprint = Schema.String.pipe(
  Schema.maxLength(200),
  Schema.pattern(/^[a-z0-9-]+=[0-9.e+-]+(;[a-z0-9-]+=[0-9.e+-]+)*$/)
)
const decodeFingerprint = Schema.decodeUnknownEither(Fingerprint)

/** The header's fingerprint, when it is one. */
export const fingerprintOf = (header: string | null | undefined): string | undefined =>
  header == null ? undefined : Either.getOrUndefined(decodeFingerprint(header.trim()))

/**
 * The origin an emulator's answers are stored under: "emulator" with the default knobs (as the
 * ledger has always keyed the embedded emulator's), else qualified by what changes its answers.
 */
export const emulatorOrigin = (fingerprint: string): string =>
  fingerprint === answerFingerprint({}) ? "emulator" : `emulator (${fingerprint})`
