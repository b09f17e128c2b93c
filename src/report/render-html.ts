/**
 * The report as one self-contained HTML page: inline CSS, charts drawn as inline SVG, no script
 * and nothing fetched, so it opens anywhere (a mail attachment, an air-gapped machine). Every
 * value from the data is escaped.
 */
import { reportNotes, type RunReport } from "./run-report.ts"

const esc = (v: unknown) =>
  String(v ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!
  )
const pct = (x: number) => `${(100 * x).toFixed(1)} %`
const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19)

const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<unknown>>, id?: string) =>
  rows.length === 0
    ? `<p class="none">none</p>`
    : `<table${id ? ` id="${id}"` : ""}><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr></thead><tbody>${rows
        .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`)
        .join("")}</tbody></table>`

/** Horizontal bars, one per item, labelled with the value. */
const bars = (items: ReadonlyArray<{ readonly label: string; readonly value: number }>, title: string) => {
  if (items.length === 0) return ""
  const max = Math.max(1, ...items.map((i) => i.value))
  const rowH = 22
  const width = 560
  const labelW = Math.min(220, 16 + 7 * Math.max(...items.map((i) => i.label.length)))
  const h = items.length * rowH + 8
  const rows = items
    .map((it, i) => {
      const w = Math.max(1, ((width - labelW - 60) * it.value) / max)
      const y = 4 + i * rowH
      return `<text x="${labelW - 6}" y="${y + 15}" text-anchor="end">${esc(it.label)}</text><rect x="${labelW}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 8}" rx="2"/><text x="${labelW + w + 6}" y="${y + 15}">${esc(it.value)}</text>`
    })
    .join("")
  return `<svg role="img" aria-label="${esc(title)}" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}" class="chart">${rows}</svg>`
}

/** What needs a person, first: whether the job alerted, and what changed since the previous run. */
const attention = (r: RunReport, listed: number): string => {
  const parts: Array<string> = []
  if (r.alerts !== undefined)
    parts.push(
      r.alerts.length > 0
        ? `<div class="alert" id="alert"><strong>ALERT: the job's report.fail thresholds were exceeded.</strong><ul>${r.alerts
            .map((a) => `<li><code>${esc(a.rule)}</code>: ${esc(a.value)} (threshold ${esc(a.threshold)})</li>`)
            .join("")}</ul></div>`
        : `<p class="ok" id="alert">No alert: no report.fail threshold exceeded.</p>`
    )
  const c = r.moderation?.changes
  if (c !== undefined) {
    const rec = c.records
    parts.push(
      `<h3>Since run ${esc(c.previousRunId)}</h3><p id="changes">${
        rec !== undefined
          ? `Records: <strong>${rec.added}</strong> added, <strong>${rec.removed}</strong> removed, <strong>${rec.edited}</strong> edited. `
          : ""
      }<strong>${c.newlyFlagged.length}</strong> newly flagged, <strong>${c.noLongerFlagged.length}</strong> no longer flagged.</p>
<h3>Newly flagged</h3>${table(
        ["id", "categories", "excerpt"],
        c.newlyFlagged.slice(0, listed).map((f) => [f.key, f.categories.join(","), f.excerpt ?? ""]),
        "newly-flagged"
      )}
<h3>No longer flagged</h3>${
        c.noLongerFlaggedRecords !== undefined
          ? table(
              ["id", "former categories", "record"],
              c.noLongerFlaggedRecords.slice(0, listed).map((n) => [n.key, n.categories.join(","), n.record]),
              "no-longer-flagged"
            )
          : c.noLongerFlagged.length === 0
            ? `<p class="none">none</p>`
            : `<p id="no-longer-flagged">${c.noLongerFlagged.slice(0, listed).map(esc).join(", ")}</p>`
      }
${
  c.categoryDeltas.length > 0
    ? `<h3>Category changes</h3>${table(
        ["code", "before", "records in", "records out", "after"],
        c.categoryDeltas.map((d) => [
          d.code,
          d.before,
          d.added !== undefined ? `+${d.added}` : "",
          d.removed !== undefined ? `−${d.removed}` : "",
          d.after
        ]),
        "category-changes"
      )}`
    : ""
}`
    )
  }
  return parts.length > 0 ? `<section id="attention"><h2>Needs attention</h2>${parts.join("\n")}</section>` : ""
}

export const renderHtml = (r: RunReport, listed = 500): string => {
  const m = r.moderation
  const sections: Array<string> = [attention(r, listed)]
  sections.push(
    `<section><h2>Summary</h2>${reportNotes(r)
      .map((n) => `<p class="note">${esc(n)}</p>`)
      .join("")}${table(
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
      ],
      "summary"
    )}${
      Object.keys(r.stageCounters).length > 0
        ? `<ul>${Object.entries(r.stageCounters)
            .map(([k, v]) => `<li>${esc(k.replaceAll("_", " "))}: ${esc(v)}</li>`)
            .join("")}</ul>`
        : ""
    }${
      r.failures.length > 0
        ? `<h3>Failures</h3>${table(
            ["stage", "status", "records", "example"],
            r.failures.map((f) => [f.stage, f.status, f.count, f.example])
          )}`
        : ""
    }</section>`
  )
  if (m !== undefined) {
    sections.push(`<section><h2>Moderation</h2>${table(["safe", "harmful", "unparsed (not counted as safe)", "empty (no text, not sent)"], [[m.safe, m.harmful, m.unparsed, m.empty]], "verdicts")}
<h3>Categories</h3>${bars(
      m.categories.map((c) => ({ label: c.code, value: c.count })),
      "harmful records per category"
    )}
${table(
  ["code", "name", "gloss", "records", "share of harmful"],
  m.categories.map((c) => [c.code, c.name, c.gloss, c.count, pct(c.share)]),
  "categories"
)}
${
  m.cooccurring.length > 0
    ? `<h3>Co-occurring categories</h3>${table(
        ["codes", "records"],
        m.cooccurring.map((p) => [p.codes, p.count])
      )}`
    : ""
}
${
  m.breakdown
    ? `<h3>By ${esc(m.breakdown.column)}</h3>${table(
        [m.breakdown.column, "records", "harmful"],
        m.breakdown.rows.map((b) => [b.value, b.records, b.harmful])
      )}`
    : ""
}</section>`)
    if (m.trend.length > 1)
      sections.push(
        `<section><h2>Trend</h2>${bars(
          m.trend.map((t) => ({ label: `run ${t.runId} · ${when(t.startedAt).slice(0, 10)}`, value: t.harmful })),
          "harmful records per run"
        )}</section>`
      )
    sections.push(
      `<section><h2>Flagged records${m.flagged.length > listed ? ` (first ${listed} of ${m.flagged.length}; all in the CSV)` : ""}</h2>${table(
        ["id", "verdict", "categories", "text"],
        m.flagged
          .slice(0, listed)
          .map((f) => [f.key, f.verdict, f.categories.join(","), f.raw ? `raw: ${f.raw}` : (f.excerpt ?? "")]),
        "flagged"
      )}${r.inputAvailable ? "" : `<p class="none">The input this run read has changed or is gone: no excerpts or breakdown.</p>`}</section>`
    )
  }
  if (r.translation) {
    sections.push(`<section><h2>Translation</h2><h3>Placeholder warnings</h3>${table(
      ["id", "warning"],
      r.translation.warnings.slice(0, listed).map((w) => [w.key, w.warning])
    )}
<h3>Records with the most requests (chunks)</h3>${table(
      ["id", "requests"],
      r.translation.chunked.map((c) => [c.key, c.requests])
    )}</section>`)
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(r.job)} — run ${esc(r.runId)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans CJK JP",sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1d2330}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;border-bottom:1px solid #dde1e8;padding-bottom:4px;margin-top:28px}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #dde1e8;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f3f5f8}
td{max-width:520px;overflow-wrap:anywhere}.none{color:#6b7280}.note{border-left:3px solid #d97706;padding-left:8px}.meta{color:#4b5563}
.alert{background:#fee2e2;border:2px solid #b91c1c;padding:6px 10px;color:#7f1d1d}.ok{background:#dcfce7;border:1px solid #15803d;padding:6px 10px}
.emulator{background:#fef3c7;border:1px solid #d97706;padding:6px 10px;font-weight:600}.chart rect{fill:#c2410c}.chart text{font-size:12px;fill:#1d2330}
</style></head><body>
<h1>${esc(r.job)} — run ${esc(r.runId)} <small>(${esc(r.status)})</small></h1>
${r.service === "emulator" ? `<p class="emulator" id="emulator">EMULATOR: these answers come from svc-batch's emulator (deterministic stand-in models), not the real service.</p>` : ""}
<p class="meta">Started ${esc(when(r.startedAt))} UTC${r.durationMs !== null ? `, took ${(r.durationMs / 1000).toFixed(1)} s` : ""}. ${r.service !== null && r.service !== "emulator" ? ` Answers from ${esc(r.service)}.` : ""} Built from the ledger by svc-batch; no request was sent to build it.</p>
${sections.join("\n")}
</body></html>
`
}
