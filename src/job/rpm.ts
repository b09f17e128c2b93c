/**
 * The rpm grammar of the command line (`run --rpm`, `emulator --rpm`): `3000` (every model) or
 * `svc3-mini=600,svc3-guard=3000,*=1000`.
 */
import { Effect, Either } from "effect"
import { OptionError } from "./job-file.ts"

/** The rpm per model (or one for every model), or what is wrong with `text`. */
export const decodeRpm = (text: string): Either.Either<number | Record<string, number>, string> => {
  if (/^\d+$/.test(text.trim())) return Either.right(Number(text))
  const out: Record<string, number> = {}
  for (const part of text.split(",")) {
    const [model, value] = part.split("=").map((s) => s.trim())
    if (!model || !value || !/^\d+$/.test(value))
      return Either.left(`expected N or model=N,... but got ${JSON.stringify(part)}`)
    out[model] = Number(value)
  }
  return Either.right(out)
}

/** `decodeRpm` that throws `--rpm: …` (the emulator's flags are read synchronously). */
export const parseRpm = (text: string): number | Record<string, number> =>
  Either.getOrThrowWith(decodeRpm(text), (detail) => new Error(`--rpm: ${detail}`))

/** `run --rpm`: per model, a single number standing for every model (`*`). */
export const rpmFlag = (text: string): Effect.Effect<Record<string, number>, OptionError> =>
  Either.match(decodeRpm(text), {
    onLeft: (detail) => Effect.fail(new OptionError({ flag: "--rpm", detail })),
    onRight: (rpm) => Effect.succeed(typeof rpm === "number" ? { "*": rpm } : rpm)
  })
