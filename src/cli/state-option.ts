/**
 * Where the job's ledger is, for every command that reads or writes it, so that a run made with
 * `--state` or `--ledger` can be inspected, reported, retried and collected with the same flag:
 * `--state FILE` (SQLite) or `--ledger URL` (PostgreSQL; else SVC_BATCH_LEDGER_URL, else the job's).
 */
import { Options } from "@effect/cli"
import { jobContext } from "../job/job-context.ts"
import { Option } from "effect"

export const stateOption = Options.all({
  state: Options.file("state").pipe(
    Options.withDescription("ledger file (SQLite; default: .svc-batch/<name>.ledger.sqlite beside the job file)"),
    Options.optional
  ),
  ledger: Options.text("ledger").pipe(
    Options.withDescription(
      "ledger on a PostgreSQL server shared by machines: postgres://user:password@host:5432/db (default: SVC_BATCH_LEDGER_URL, else the job's ledger)"
    ),
    Options.optional
  )
})

export interface LedgerChoice {
  readonly state: Option.Option<string>
  readonly ledger: Option.Option<string>
}

/** The job overrides the two flags make. */
export const ledgerOverrides = (choice: LedgerChoice) => ({
  state: Option.getOrUndefined(choice.state),
  ledger: Option.getOrUndefined(choice.ledger)
})

/**
 * The job context of a command about the job's past runs (status, runs, report, gc): `--state` /
 * `--ledger` honoured, the input not needed, a ledger that exists (else: the job has not run yet).
 */
export const pastRunsContext = (
  o: { readonly job: string; readonly state: LedgerChoice },
  options: { readonly checked?: boolean } = {}
) =>
  jobContext(o.job, {
    overrides: ledgerOverrides(o.state),
    inputMustExist: false,
    ranBefore: true,
    ...options
  })
