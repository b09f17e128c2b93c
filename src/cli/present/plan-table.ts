/** The plan as a table (`plan`, `run --dry-run`): per stage and model, what is answered and what is to send. */
import type { Plan } from "../../engine/plan.ts"
import { thousands } from "../../engine/thousands.ts"
import type { ResolvedJob } from "../../job/resolve-job.ts"
import { encodingHint } from "../../io/encoding.ts"

const fmt = thousands
const minutes = (m: number | undefined) =>
  m === undefined
    ? "unknown (no limits.rpm)"
    : m < 1
      ? `${Math.ceil(m * 60)} s`
      : m < 90
        ? `${m.toFixed(1)} min`
        : `${(m / 60).toFixed(1)} h`

export const planLines = (job: ResolvedJob, plan: Plan, origin: string): ReadonlyArray<string> => {
  const head = ["stage", "endpoint", "model", "records", "answered", "to send", "tokens", "code points"]
  const rows = plan.rows.map((r) => [
    r.stage,
    r.endpoint,
    r.model,
    `${fmt(r.records)}${r.assumed > 0 ? ` (${fmt(r.assumed)} if earlier stages allow)` : ""}`,
    fmt(r.cached),
    fmt(r.toSend),
    r.endpoint === "translate" ? "-" : fmt(r.tokens),
    r.endpoint === "translate" ? fmt(r.codePoints) : "-"
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (r: ReadonlyArray<string>) =>
    r
      .map((c, i) => (i >= 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd()
  const errors = Object.entries(plan.inputErrors).map(
    ([stage, n]) => `${n} record(s) refused by ${stage} before any request (e.g. a missing field)`
  )
  const hint = encodingHint(plan.unreadable, plan.notUtf8)
  return [
    `svc-batch plan ${job.name}: ${fmt(plan.records)} records in ${job.input.path}${plan.unreadable > 0 ? `, ${fmt(plan.unreadable)} unreadable` : ""}; answers looked up for ${origin === "emulator" ? "the EMULATOR" : origin}`,
    line(head),
    ...rows.map(line),
    ...errors.map((e) => `  ${e}`),
    ...(hint === undefined ? [] : [`  ${hint}`]),
    ...plan.models.map(
      (m) =>
        `  ${m.model}: ${fmt(m.requests)} requests to send${m.rpm !== undefined ? ` at ${fmt(m.rpm)}/min: ${minutes(m.minutes)}` : ": no rpm limit set"}`
    ),
    `  duration at the rpm limits: ${minutes(plan.minutes)}${plan.models.length > 1 && plan.minutes !== undefined ? " (the slowest model's)" : ""}; nothing was sent`
  ]
}
