/**
 * `--wait`: every command that holds the job's lock (run, retry, gc) waits for the invocation that
 * holds it instead of exiting 7; one definition, so the flag reads the same everywhere.
 */
import { Options } from "@effect/cli"

export const waitOption = Options.boolean("wait").pipe(
  Options.withDescription("when another invocation of this job holds its lock, wait for it to end instead of exiting 7")
)
