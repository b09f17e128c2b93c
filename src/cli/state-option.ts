/**
 * `--state FILE`: the job's ledger, for every command that reads or writes it, so that a run made
 * with `--state` can be inspected, reported, retried and collected with the same flag.
 */
import { Options } from "@effect/cli"
import { Option } from "effect"
import { jobContext } from "../job/job-context.ts"

export const stateOption = Options.file("state").pipe(
  Options.withDescription("ledger file (SQLite; default: .svc-batch/<name>.ledger.sqlite beside the job file)"),
  Options.optional
)

/**
 * The job context of a command about the job's past runs (status, runs, report, gc): `--state`
 * honoured, the input not needed, a ledger that exists (else: the job has not run yet).
 */
export const pastRunsContext = (
  o: { readonly job: string; readonly state: Option.Option<string> },
  options: { readonly checked?: boolean } = {}
) =>
  jobContext(o.job, {
    overrides: { state: Option.getOrUndefined(o.state) },
    inputMustExist: false,
    ranBefore: true,
    ...options
  })
