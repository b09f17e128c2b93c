/** `--max-requests N` (run, retry): a budget of at least one request, or none. */
import { Effect } from "effect"
import { OptionError } from "./job-file.ts"

export const requestBudgetFlag = (n: number | undefined): Effect.Effect<number | undefined, OptionError> =>
  n !== undefined && n < 1
    ? Effect.fail(new OptionError({ flag: "--max-requests", detail: `expected a whole number of 1 or more, got ${n}` }))
    : Effect.succeed(n)
