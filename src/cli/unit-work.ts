/**
 * One work unit on this machine, for `svc-batch worker` and a coordinator that works units too:
 * the unit's input checked (readable here, and the very file the coordinator fingerprinted), its
 * job resolved from the job file with the coordinator's overrides, then the same processing pass
 * a single run makes (`processUnit`) over the unit's slice, answers and outcomes going to the
 * shared ledger.
 */
import { Effect } from "effect"
import { statSync } from "node:fs"
import { hostname } from "node:os"
import { pipelineForJob } from "../../pipelines/index.ts"
import type { UnitPayload } from "../cluster/unit-payload.ts"
import type { UnitEnd } from "../cluster/worker.ts"
import type { SharedRate } from "../engine/flow/shared-bucket.ts"
import { processUnit } from "../engine/records/process-unit.ts"
import { RunStats, type UnitCounters, unitCountersOf } from "../engine/run-stats.ts"
import { checkReadable } from "../io/input-access.ts"
import { type Format, measureInput } from "../io/sources/index.ts"
import { type JobOverrides, resolveJob } from "../job/resolve-job.ts"
import { Ledger } from "../ledger/ledger.ts"
import { serviceLayer, ServiceEndpoint } from "./endpoint.ts"
import { unitSettingsOf } from "./run-session.ts"

/** Fingerprints by path, kept while the file's size and mtime stay: a file is read once, not once per unit. */
const fingerprints = new Map<
  string,
  { readonly size: number; readonly mtimeMs: number; readonly fingerprint: string }
>()

const fingerprintOf = (path: string, format: Format) =>
  Effect.gen(function* () {
    const st = statSync(path)
    const known = fingerprints.get(path)
    if (known !== undefined && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.fingerprint
    const { fingerprint } = yield* measureInput(path, format)
    fingerprints.set(path, { size: st.size, mtimeMs: st.mtimeMs, fingerprint })
    return fingerprint
  })

const refused = (reason: string): UnitEnd => ({ _tag: "Refused", reason })

/**
 * `sharedRate`: the cluster's request rate per service and model (cluster/shared-rate.ts), opened
 * once per process: `limits.rpm` is then the whole cluster's rate, and a 429 one worker meets slows all.
 */
export const unitWork =
  (stop: Effect.Effect<void>, sharedRate?: SharedRate) =>
  (
    payload: UnitPayload,
    progress: (read: () => UnitCounters) => void = () => undefined,
    lost: Effect.Effect<void> = Effect.never
  ): Effect.Effect<UnitEnd, { readonly message: string }, Ledger> =>
    Effect.gen(function* () {
      const here = hostname()
      const readable = yield* Effect.either(checkReadable(payload.input))
      if (readable._tag === "Left") return refused(`cannot read the input on ${here}: ${readable.left.message}`)
      const fingerprint = yield* Effect.either(fingerprintOf(payload.input, payload.format as Format))
      if (fingerprint._tag === "Left") return refused(`cannot read the input on ${here}: ${fingerprint.left.message}`)
      if (fingerprint.right !== payload.fingerprint)
        return refused(
          `${payload.input} on ${here} is not the file the coordinator read (fingerprint ${fingerprint.right.slice(0, 12)}, expected ${payload.fingerprint.slice(0, 12)})`
        )
      const resolved = yield* Effect.either(
        Effect.gen(function* () {
          const job = yield* resolveJob(payload.jobFile, payload.overrides as JobOverrides)
          return { job, pipeline: yield* pipelineForJob(payload.jobFile, job.job) }
        })
      )
      if (resolved._tag === "Left") return refused(`the job on ${here}: ${resolved.left.message}`)
      const { job, pipeline } = resolved.right
      const ledger = yield* Ledger
      const result = yield* Effect.gen(function* () {
        const endpoint = yield* ServiceEndpoint
        const settings = unitSettingsOf(job, pipeline, endpoint, {
          fingerprint: payload.fingerprint,
          // This process stopping, or the unit given to another: requests in flight finish, no new one.
          stop: Effect.race(stop, lost),
          retryFailed: payload.retryFailed,
          sharedRate
        })
        const stats = new RunStats()
        progress(() => unitCountersOf(stats.snapshot()))
        return yield* processUnit(settings, stats, {
          runId: payload.runId,
          // Records of the run finished elsewhere (an earlier attempt of this unit) are skipped.
          resumed: true,
          startedAt: payload.startedAt,
          unit: payload.unit
        })
      }).pipe(
        Effect.scoped,
        Effect.provide(serviceLayer(job.job.emulator ?? {}, { serviceRequired: job.job.service === "required" }))
      )
      // Committed before the unit counts as done.
      yield* ledger.flush
      return result.stopped ? ({ _tag: "Stopped" } as const) : ({ _tag: "Done" } as const)
    }).pipe(
      Effect.catchTag("JobAborted", (e) => Effect.succeed<UnitEnd>({ _tag: "Aborted", reason: e.reason })),
      Effect.mapError((e) => ({ message: e.message }))
    )
