/**
 * `svc-batch worker --cluster postgres://… [--concurrency N]`: a long-lived worker on any machine.
 * It takes work units of any job from the cluster's queue (see src/cluster/) and processes each
 * with the same pass a single run makes, on the shared ledger. The job file and the input must be
 * at the unit's paths on this machine (a shared volume); a unit whose input is unreadable here or
 * is another file is refused (the coordinator stops that run). SIGTERM or Ctrl-C: requests in
 * flight finish, the units in hand go back to the queue at once, the worker exits 130.
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Redacted } from "effect"
import { runWorker, type UnitEnd } from "../cluster/worker.ts"
import type { UnitPayload } from "../cluster/unit-payload.ts"
import { makeUnitBoard } from "../cluster/unit-board.ts"
import { makeUnitQueue } from "../cluster/unit-queue.ts"
import { isPostgresUrl, redactUrl } from "../ledger/ledger-url.ts"
import { OptionError } from "../job/job-file.ts"
import { PostgresLedger } from "../ledger/postgres-ledger.ts"
import { Outcome, ending } from "./outcome.ts"
import { gracefulStop } from "./shutdown.ts"
import { openSharedRate } from "../cluster/shared-rate.ts"
import { unitWork } from "./unit-work.ts"
import { withDefaultShown } from "./option-default.ts"

/** A unit's end as one log line. */
export const tellUnit = (p: UnitPayload, end: UnitEnd | { readonly _tag: "Failed"; readonly reason: string }) =>
  Effect.logInfo(
    `run ${p.runId} unit ${p.index} (${p.unit.rows} rows): ${end._tag.toLowerCase()}${"reason" in end ? `: ${end.reason}` : ""}`
  )

export const workerCommand = Command.make(
  "worker",
  {
    cluster: Options.text("cluster").pipe(
      Options.withDescription("the cluster's PostgreSQL: postgres://user:password@host:5432/db")
    ),
    concurrency: Options.integer("concurrency").pipe(
      Options.withDescription("units worked at once"),
      withDefaultShown(1)
    ),
    pollMs: Options.integer("poll-ms").pipe(
      Options.withDescription("how often an idle worker asks for a unit (ms)"),
      withDefaultShown(500)
    )
  },
  ending((o) =>
    Effect.gen(function* () {
      if (!isPostgresUrl(o.cluster))
        return yield* new OptionError({
          flag: "--cluster",
          detail: "expected a postgres:// URL (postgres://user:password@host:5432/database)"
        })
      const url = Redacted.make(o.cluster.trim())
      const stop = yield* gracefulStop
      const board = yield* makeUnitBoard(url)
      const queue = yield* makeUnitQueue(url, { supervise: false })
      yield* Console.error(`svc-batch worker on ${redactUrl(o.cluster)}: ${o.concurrency} at once; waiting for units`)
      yield* runWorker({
        board,
        queue,
        concurrency: o.concurrency,
        stop,
        pollMs: Math.max(50, o.pollMs),
        work: unitWork(stop, yield* openSharedRate({ url })),
        told: tellUnit
      }).pipe(Effect.provide(PostgresLedger.layer({ url })))
      yield* Console.error("svc-batch worker stopped: units in hand were given back to the queue")
      return Outcome.Interrupted()
    }).pipe(Effect.scoped)
  )
).pipe(
  Command.withDescription(
    "Work units of cluster runs (run --cluster) on this machine until stopped. Example: svc-batch worker --cluster postgres://svc:pw@db:5432/batch --concurrency 2"
  )
)
