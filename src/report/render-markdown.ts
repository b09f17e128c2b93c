/** The report as Markdown, to paste into a chat or a ticket. */
import { reportNotes, type RunReport } from "./run-report.ts"

const cell = (v: unknown) =>
  String(v ?? "")
    .replace(/\|/g, "\\|")
    .replace(/\s*\n\s*/g, " ")
const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>) =>
  rows.length === 0
    ? "_none_\n"
    : `| ${head.join(" | ")} |\n|${head.map(() => "---").join("|")}|\n${rows.map((r) => `| ${r.map(cell).join(" | ")} |`).join("\n")}\n`
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19)

/** What needs a person, first: whether the job alerted, and what changed since the previous run. */
const attention = (r: RunReport, listed: number): Array<string> => {
  const out: Array<string> = []
  if (r.alerts !== undefined)
    out.push(
      r.alerts.length > 0
        ? `**ALERT: the job's report.fail thresholds were exceeded.**\n\n${r.alerts
            .map((a) => `- \`${a.rule}\`: ${a.value} (threshold ${a.threshold})`)
            .join("\n")}\n`
        : "No alert: no report.fail threshold exceeded.\n"
    )
  const c = r.moderation?.changes
  if (c !== undefined) {
    const rec = c.records
    out.push(`### Since run ${c.previousRunId}`, "")
    out.push(
      `${rec !== undefined ? `Records: ${rec.added} added, ${rec.removed} removed, ${rec.edited} edited. ` : ""}${c.newlyFlagged.length} newly flagged, ${c.noLongerFlagged.length} no longer flagged.`,
      ""
    )
    out.push(
      "Newly flagged:",
      "",
      table(
        ["id", "categories", "excerpt"],
        c.newlyFlagged.slice(0, listed).map((f) => [f.key, f.categories.join(","), f.excerpt ?? ""])
      )
    )
    out.push(
      "No longer flagged:",
      "",
      c.noLongerFlaggedRecords !== undefined
        ? table(
            ["id", "former categories", "record"],
            c.noLongerFlaggedRecords.slice(0, listed).map((n) => [n.key, n.categories.join(","), n.record])
          )
        : c.noLongerFlagged.length === 0
          ? "_none_\n"
          : `${c.noLongerFlagged.slice(0, listed).join(", ")}\n`
    )
    if (c.categoryDeltas.length > 0)
      out.push(
        "Category changes:",
        "",
        table(
          ["code", "before", "records in", "records out", "after"],
          c.categoryDeltas.map((d) => [
            d.code,
            d.before,
            d.added !== undefined ? `+${d.added}` : "",
            d.removed !== undefined ? `−${d.removed}` : "",
            d.after
          ])
        )
      )
  }
  return out.length > 0 ? ["## Needs attention", "", ...out] : []
}

export const renderMarkdown = (r: RunReport, listed = 50): string => {
  const out: Array<string> = []
  out.push(`# ${r.job} — run ${r.runId} (${r.status})`, "")
  if (r.service === "emulator")
    out.push(
      "**EMULATOR**: these answers come from svc-batch's emulator (deterministic stand-in models), not the real service.",
      ""
    )
  out.push(
    `Started ${when(r.startedAt)} UTC${r.durationMs !== null ? `, took ${(r.durationMs / 1000).toFixed(1)} s` : ""}.`,
    ""
  )
  out.push(...attention(r, listed))
  out.push("## Summary", "")
  for (const note of reportNotes(r)) out.push(`> ${note}`, "")
  out.push(
    table(
      ["records", "done", "failed", "unreadable", "requests", "cache hits", "tokens", "retries", "429s"],
      [
        [
          r.records.total,
          r.records.done,
          r.records.failed,
          r.records.unreadable,
          r.requests,
          r.cacheHits,
          r.tokens,
          r.retries,
          r.rateLimited
        ]
      ]
    )
  )
  const counters = Object.entries(r.stageCounters)
  if (counters.length > 0) out.push(counters.map(([k, v]) => `- ${k.replaceAll("_", " ")}: ${v}`).join("\n"), "")
  if (r.failures.length > 0)
    out.push(
      "### Failures",
      "",
      table(
        ["stage", "status", "records", "example"],
        r.failures.map((f) => [f.stage, f.status, f.count, f.example])
      )
    )
  const m = r.moderation
  if (m !== undefined) {
    out.push("## Moderation", "")
    out.push(
      table(
        ["safe", "harmful", "unparsed (not counted as safe)", "empty (no text, not sent)"],
        [[m.safe, m.harmful, m.unparsed, m.empty]]
      )
    )
    out.push(
      "### Categories",
      "",
      table(
        ["code", "name", "gloss", "records", "share of harmful"],
        m.categories.map((c) => [c.code, c.name, c.gloss, c.count, pct(c.share)])
      )
    )
    if (m.cooccurring.length > 0)
      out.push(
        "### Co-occurring categories",
        "",
        table(
          ["codes", "records"],
          m.cooccurring.map((p) => [p.codes, p.count])
        )
      )
    if (m.breakdown)
      out.push(
        `### By ${m.breakdown.column}`,
        "",
        table(
          [m.breakdown.column, "records", "harmful"],
          m.breakdown.rows.map((b) => [b.value, b.records, b.harmful])
        )
      )
    if (m.trend.length > 1)
      out.push(
        "### Trend",
        "",
        table(
          ["run", "started", "records", "harmful"],
          m.trend.map((t) => [t.runId, when(t.startedAt), t.records, t.harmful])
        )
      )
    out.push(
      `### Flagged records${m.flagged.length > listed ? ` (first ${listed} of ${m.flagged.length}; all in the CSV)` : ""}`,
      ""
    )
    out.push(
      table(
        ["id", "verdict", "categories", "excerpt"],
        m.flagged
          .slice(0, listed)
          .map((f) => [f.key, f.verdict, f.categories.join(","), f.raw ? `raw: ${f.raw}` : (f.excerpt ?? "")])
      )
    )
    if (!r.inputAvailable) out.push("_The input this run read has changed or is gone: no excerpts or breakdown._", "")
  }
  if (r.translation) {
    out.push("## Translation", "")
    out.push(
      "### Placeholder warnings",
      "",
      table(
        ["id", "warning"],
        r.translation.warnings.slice(0, listed).map((w) => [w.key, w.warning])
      )
    )
    out.push(
      "### Records with the most requests (chunks)",
      "",
      table(
        ["id", "requests"],
        r.translation.chunked.map((c) => [c.key, c.requests])
      )
    )
  }
  return out.join("\n")
}
