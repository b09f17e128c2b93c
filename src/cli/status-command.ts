/**
 * `svc-batch status <job-file> [--run N] [--json] [--watch]`: where the job's last run (or run N)
 * stands, from the ledger — also while it runs in another process (SQLite WAL: a reader never
 * blocks the writer). Sends nothing.
 */
import { withDefaultShown } from "./option-default.ts"
import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Option, Redacted } from "effect"
import { makeUnitBoard } from "../cluster/unit-board.ts"
import { unitLines, unitsView } from "./present/unit-lines.ts"
import { chosenRun, JobContext, withJobLedger } from "../job/job-context.ts"
import { pastRunsContext, stateOption } from "./state-option.ts"
import { jobFileArg } from "./job-file-arg.ts"
import { lockSeenHere, viewsWithLock } from "./run-liveness.ts"
import { statusLines } from "./run-view.ts"

export const statusCommand = Command.make(
  "status",
  {
    job: jobFileArg.pipe(Args.withDescription("the job file")),
    state: stateOption,
    cluster: Options.text("cluster").pipe(
      Options.withDescription(
        "a cluster run's PostgreSQL (run --cluster): also its units (queued, active, done, failed) and active workers"
      ),
      Options.optional
    ),
    run: Options.integer("run").pipe(Options.withDescription("the run (default: the job's last)"), Options.optional),
    json: Options.boolean("json").pipe(Options.withDescription("print the status as one JSON object")),
    watch: Options.boolean("watch").pipe(
      Options.withDescription("refresh every --interval seconds until the run ends")
    ),
    interval: Options.integer("interval").pipe(
      Options.withDescription("seconds between refreshes with --watch"),
      withDefaultShown(2)
    )
  },
  (o) =>
    Effect.gen(function* () {
      const { job } = yield* JobContext
      const clusterUrl = Option.getOrUndefined(o.cluster) ?? job.job.cluster?.url
      const board = clusterUrl === undefined ? undefined : yield* makeUnitBoard(Redacted.make(clusterUrl.trim()))
      const show = Effect.gen(function* () {
        const [view] = yield* viewsWithLock(
          Effect.map(chosenRun(o.run), (run) => [run]),
          lockSeenHere(job)
        )
        const units = board === undefined ? undefined : unitsView(yield* board.units(view!.id))
        yield* Console.log(
          o.json
            ? JSON.stringify(units === undefined ? view : { ...view, units })
            : [...statusLines(view!, o.job), ...(units === undefined ? [] : unitLines(units))].join("\n")
        )
        return view!
      })
      yield* withJobLedger(
        Effect.gen(function* () {
          let view = yield* show
          if (!o.watch) return
          while (view.state === "running") {
            yield* Effect.sleep(Duration.seconds(Math.max(1, o.interval)))
            view = yield* show
          }
          // The end of the watch, said (as text only: --json prints one object per refresh).
          if (!o.json)
            yield* Console.log(
              `watch ended: run ${view.id} is no longer running (${view.state}${view.staleCause ? `: ${view.staleCause}` : ""})`
            )
        })
      )
    }).pipe(
      Effect.scoped,
      // A cluster's URL is its ledger's.
      Effect.provide(
        pastRunsContext({
          job: o.job,
          state: Option.isSome(o.cluster) ? { state: Option.none(), ledger: o.cluster } : o.state
        })
      )
    )
).pipe(
  Command.withDescription(
    "Show where a job's run stands (also while it runs elsewhere): counts, rate, ETA, 429s; sends nothing. Example: svc-batch status jobs/nightly.yaml --watch"
  )
)
