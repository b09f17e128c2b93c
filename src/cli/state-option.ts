/**
 * `--state FILE`: the job's ledger, for every command that reads or writes it, so that a run made
 * with `--state` can be inspected, reported, retried and collected with the same flag.
 */
import { Options } from "@effect/cli"

export const stateOption = Options.file("state").pipe(
  Options.withDescription("ledger file (SQLite; default: .svc-batch/<name>.ledger.sqlite beside the job file)"),
  Options.optional
)
