/**
 * The ledger of a job, for the commands that only read it (status, runs, report, gc): the job file
 * resolved as `run` resolves it, and a clear error when the job has not run yet.
 */
import { Effect, Option } from "effect"
import { ledgerMayExist, ledgerName, resolveJob, type ResolvedJob } from "../job/resolve-job.ts"
import { Ledger, type Run } from "../ledger/ledger.ts"
import { ConfigError } from "./endpoint.ts"
import { type LedgerChoice, ledgerOverrides } from "./state-option.ts"

/** The resolved job, if its ledger (`--state`/`--ledger`, else the job's) exists. */
export const jobWithLedger = (file: string, choice: LedgerChoice) =>
  Effect.gen(function* () {
    const job = yield* resolveJob(file, ledgerOverrides(choice), { inputMustExist: false })
    if (!ledgerMayExist(job))
      return yield* new ConfigError({
        detail: `${file}: no ledger at ${job.state}: the job has not run yet (svc-batch run ${file})`
      })
    return job
  })

/** The run `id`, or the job's last; an error naming what is missing. */
export const chosenRun = (file: string, job: ResolvedJob, id: Option.Option<number>) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const run: Option.Option<Run> = yield* Option.match(id, {
      onNone: () => ledger.lastRun(job.name),
      onSome: (n) => ledger.run(n)
    })
    if (Option.isNone(run) || run.value.job !== job.name) {
      const which = Option.match(id, { onNone: () => "no run", onSome: (n) => `no run ${n}` })
      return yield* new ConfigError({ detail: `${file}: ${which} of job ${job.name} in ${ledgerName(job)}` })
    }
    return run.value
  })
