/**
 * `Options.withDefault` that also says the default in `--help` (@effect/cli's help leaves a plain
 * default out): the value is written once, here at the option.
 */
import { Options } from "@effect/cli"

export const withDefaultShown =
  <const A>(value: A) =>
  <B>(self: Options.Options<B>): Options.Options<A | B> =>
    self.pipe(Options.withDescription(`(default: ${String(value)})`), Options.withDefault(value))
