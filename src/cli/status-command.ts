/**
 * `svc-batch status <job-file> [--run N] [--json] [--watch]`: where the job's last run (or run N)
 * stands, from the ledger — also while it runs in another process (SQLite WAL: a reader never
 * blocks the writer). Sends nothing.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect } from "effect"
import { Ledger } from "../ledger/ledger.ts"
import { chosenRun, jobWithLedger } from "./job-ledger.ts"
import { statusLines, viewOf } from "./run-view.ts"

export const statusCommand = Command.make(
  "status",
  {
    job: Args.file({ name: "job-file", exists: "yes" }).pipe(Args.withDescription("the job file")),
    run: Options.integer("run").pipe(Options.withDescription("the run (default: the job's last)"), Options.optional),
    json: Options.boolean("json").pipe(Options.withDescription("print the status as one JSON object")),
    watch: Options.boolean("watch").pipe(Options.withDescription("refresh every --interval seconds until the run ends")),
    interval: Options.integer("interval").pipe(Options.withDescription("seconds between refreshes with --watch"), Options.withDefault(2))
  },
  (o) =>
    Effect.gen(function* () {
      const job = yield* jobWithLedger(o.job)
      const show = Effect.gen(function* () {
        const view = viewOf(yield* chosenRun(o.job, job, o.run))
        yield* Console.log(o.json ? JSON.stringify(view) : statusLines(view).join("\n"))
        return view
      })
      yield* Effect.gen(function* () {
        let state = (yield* show).state
        while (o.watch && state === "running") {
          yield* Effect.sleep(Duration.seconds(Math.max(1, o.interval)))
          state = (yield* show).state
        }
      }).pipe(Effect.provide(Ledger.layer({ path: job.state })))
    })
).pipe(Command.withDescription("Show where a job's run stands (also while it runs elsewhere): counts, rate, ETA, 429s; sends nothing. Example: svc-batch status jobs/nightly.yaml --watch"))
