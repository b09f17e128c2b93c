/**
 * A job's plan, without sending anything: the input read once (streaming), each record prepared by
 * each stage as the run would, every request looked up in the ledger (answered already: free; else
 * to send), with the text it carries measured. A stage whose `when` tests a column that is not
 * known yet (an earlier stage's answer is not in the ledger) is assumed to run: the plan is an
 * upper bound. Durations follow the job's rpm limits; the slowest model sets the run's.
 */
import { Effect, Option, Stream } from "effect"
import type { Source } from "../io/source.ts"
import { isNotUtf8 } from "../io/encoding.ts"
import { Ledger } from "../ledger/ledger.ts"
import { codePointLength } from "../service/limits.ts"
import { countTokens } from "../service/tokens.ts"
import { originKey } from "./records/answer-cache.ts"
import { type Fields, type Pipeline, StageInputError } from "../pipeline/stage.ts"

export interface PlanRow {
  readonly stage: string
  readonly endpoint: string
  readonly model: string
  /** Records the stage runs for (or may run for: see `assumed`). */
  readonly records: number
  /** Of those, records whose `when` could not be decided (an earlier answer is not stored yet). */
  readonly assumed: number
  readonly cached: number
  readonly toSend: number
  /** Tokens (o200k) of the text still to send; code points for translate. */
  readonly tokens: number
  readonly codePoints: number
}

export interface ModelTime {
  readonly model: string
  readonly requests: number
  /** Requests per minute from the job's limits; undefined when none is set. */
  readonly rpm: number | undefined
  readonly minutes: number | undefined
}

export interface Plan {
  readonly records: number
  readonly unreadable: number
  /** Of those, rows that are not UTF-8 (an input in another encoding read as UTF-8). */
  readonly notUtf8: number
  readonly rows: ReadonlyArray<PlanRow>
  /** Records a stage refused without a request (e.g. a missing field), by stage. */
  readonly inputErrors: Readonly<Record<string, number>>
  readonly models: ReadonlyArray<ModelTime>
  /** The run's duration at the rpm limits: the slowest model's. */
  readonly minutes: number | undefined
}

export interface Tally {
  stage: string
  endpoint: string
  model: string
  records: number
  assumed: number
  cached: number
  toSend: number
  tokens: number
  codePoints: number
}

export const planJob = (
  pipeline: Pipeline,
  source: Source,
  origin: string | undefined,
  rpm: Readonly<Record<string, number>>
) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const tallies = new Map<string, Tally>()
    const inputErrors: Record<string, number> = {}
    let records = 0
    let unreadable = 0
    let notUtf8 = 0
    const tallyFor = (stage: string, endpoint: string, model: string) => {
      const k = `${stage}\u0000${endpoint}\u0000${model}`
      let t = tallies.get(k)
      if (t === undefined)
        tallies.set(
          k,
          (t = { stage, endpoint, model, records: 0, assumed: 0, cached: 0, toSend: 0, tokens: 0, codePoints: 0 })
        )
      return t
    }

    // A stage's rows are its own: two stages of one type (two translate stages) are two rows.
    const labels = pipeline.stages.map((s, i) =>
      pipeline.stages.filter((o) => o.name === s.name).length > 1 ? `${s.name} (stage ${i + 1})` : s.name
    )

    const planRecord = (input: Fields) =>
      Effect.gen(function* () {
        let fields: Fields = input
        // Columns whose values are known: the input's, and those of stages answered from the ledger.
        const unknown = new Set<string>()
        for (const [index, stage] of pipeline.stages.entries()) {
          const label = labels[index]!
          let assumed = false
          if (stage.when !== undefined) {
            if (stage.when.columns.some((c) => unknown.has(c))) assumed = true
            else if (!stage.when.test(fields)) continue
          }
          const prepared = stage.prepare(fields)
          if (prepared instanceof StageInputError) {
            inputErrors[label] = (inputErrors[label] ?? 0) + 1
            return
          }
          const { requests, assemble } = prepared
          const seen = new Set<string>()
          const answers: Array<unknown> = []
          let allCached = true
          for (const request of requests) {
            const t = tallyFor(label, request.endpoint, request.model)
            if (!seen.has(t.model + t.endpoint)) {
              seen.add(t.model + t.endpoint)
              t.records++
              if (assumed) t.assumed++
            }
            const key = originKey(origin, request.key)
            const stored = allCached ? yield* ledger.answer(key, request.answer) : Option.none()
            if (Option.isSome(stored)) {
              t.cached++
              answers.push(stored.value)
              continue
            }
            if (yield* ledger.hasAnswer(key)) {
              t.cached++
              allCached = false
              continue
            }
            allCached = false
            t.toSend++
            if (request.endpoint === "translate") t.codePoints += codePointLength(request.text)
            else t.tokens += countTokens(request.text)
          }
          if (allCached && !stage.fanOut) {
            const row = assemble(answers)[0]
            fields = { ...fields, ...row }
          } else {
            for (const c of stage.columns) unknown.add(c.name)
          }
        }
      })

    yield* source.items().pipe(
      Stream.runForEach((item) => {
        if (item._tag === "Reject")
          return Effect.sync(() => {
            unreadable++
            if (isNotUtf8(item.reason)) notUtf8++
          })
        records++
        return planRecord(item.fields)
      })
    )

    const rows = [...tallies.values()]
    const byModel = new Map<string, number>()
    for (const r of rows) byModel.set(r.model, (byModel.get(r.model) ?? 0) + r.toSend)
    const models: Array<ModelTime> = [...byModel].map(([model, requests]) => {
      const limit = rpm[model] ?? rpm["*"]
      return { model, requests, rpm: limit, minutes: limit === undefined ? undefined : requests / limit }
    })
    const known = models.filter((m) => m.requests > 0)
    const minutes =
      known.length === 0
        ? 0
        : known.every((m) => m.minutes !== undefined)
          ? Math.max(...known.map((m) => m.minutes!))
          : undefined
    return { records, unreadable, notUtf8, rows, inputErrors, models, minutes } satisfies Plan
  })
