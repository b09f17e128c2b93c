/** The morning report of a nightly job: what needs a person first (alert, changes), sections that apply only. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { renderHtml } from "../../src/report/render-html.ts"
import { renderMarkdown } from "../../src/report/render-markdown.ts"
import { encodeReportJson, RunReport } from "../../src/report/run-report.ts"
import { reportFiles, withAlerts, writeReport } from "../../src/report/write-report.ts"
import { openInChromium } from "./chromium.ts"

const base: RunReport = {
  job: "nightly",
  runId: 12,
  status: "finished",
  startedAt: Date.UTC(2026, 10, 25, 3, 0, 0),
  finishedAt: Date.UTC(2026, 10, 25, 3, 0, 40),
  durationMs: 40_000,
  service: "https://svc.example",
  inputAvailable: true,
  records: { total: 500, done: 500, failed: 0, unreadable: 0 },
  failures: [],
  requests: 20,
  cacheHits: 480,
  tokens: 900,
  retries: 0,
  rateLimited: 0,
  stageCounters: {}
}

const nightly: RunReport = {
  ...base,
  moderation: {
    safe: 480,
    harmful: 20,
    unparsed: 0,
    empty: 0,
    categories: [{ code: "T6", name: "個人情報漏洩", gloss: "leak of personal information", count: 20, share: 1 }],
    cooccurring: [],
    flagged: [{ key: "u-7", verdict: "harmful", categories: ["T6"], excerpt: "call me at 090-…" }],
    changes: {
      previousRunId: 11,
      newlyFlagged: [
        { key: "u-7", verdict: "harmful", categories: ["T6"], excerpt: "call me at 090-…" },
        { key: "u-8", verdict: "harmful", categories: ["T6"], excerpt: "my address is …" }
      ],
      noLongerFlagged: ["u-1", "u-2"],
      noLongerFlaggedRecords: [
        { key: "u-1", categories: ["T9"], record: "edited" },
        { key: "u-2", categories: ["T6", "T9"], record: "removed" }
      ],
      records: { added: 3, removed: 1, edited: 4 },
      categoryDeltas: [
        { code: "T6", before: 19, after: 20, added: 2, removed: 1 },
        { code: "T9", before: 2, after: 0, added: 0, removed: 2 }
      ]
    },
    trend: []
  }
}

const alerted = withAlerts(nightly, { newlyFlagged: 1, categories: { T6: 0, T9: 5 } })

describe("the morning report", () => {
  it("states each exceeded report.fail threshold with its value, and none when none is", () => {
    expect(alerted.alerts).toEqual([
      { rule: "newlyFlagged", threshold: 1, value: 2, message: "2 newly flagged records (threshold 1)" },
      { rule: "categories.T6", threshold: 0, value: 2, message: "2 newly flagged records in T6 (threshold 0)" }
    ])
    expect(withAlerts(nightly, { newlyFlagged: 5 }).alerts).toEqual([])
    expect(withAlerts(nightly, undefined).alerts).toBeUndefined()
  })

  it("opens the Markdown with the alert and the changes, before the summary", () => {
    const md = renderMarkdown(alerted)
    const attention = md.indexOf("## Needs attention")
    expect(attention).toBeGreaterThan(0)
    expect(attention).toBeLessThan(md.indexOf("## Summary"))
    expect(md).toContain("**ALERT: the job's report.fail thresholds were exceeded.**")
    expect(md).toContain("- `categories.T6`: 2 (threshold 0)")
    expect(md).toContain("Records: 3 added, 1 removed, 4 edited. 2 newly flagged, 2 no longer flagged.")
    expect(md).toContain("| u-8 | T6 | my address is … |")
    expect(md).toContain("| u-2 | T6,T9 | removed |")
    expect(md).toContain("| T6 | 19 | +2 | −1 | 20 |")
    expect(renderMarkdown(withAlerts(nightly, { newlyFlagged: 5 }))).toContain("No alert")
  })

  it("keeps the alert in the JSON, which still reads a report written before these fields", () => {
    const json = JSON.parse(encodeReportJson(alerted))
    expect(json.alerts[0]).toMatchObject({ rule: "newlyFlagged", threshold: 1, value: 2 })
    expect(json.moderation.changes.records).toEqual({ added: 3, removed: 1, edited: 4 })
    const { alerts: _a, ...older } = json
    delete older.moderation.changes.records
    delete older.moderation.changes.noLongerFlaggedRecords
    older.moderation.changes.categoryDeltas = [{ code: "T6", before: 19, after: 20 }]
    expect(Schema.decodeUnknownSync(RunReport)(older).moderation!.changes!.noLongerFlagged).toEqual(["u-1", "u-2"])
  })

  it.effect("leaves out the sections a job's stages do not have, and its flagged CSV", () =>
    Effect.gen(function* () {
      const html = renderHtml(base)
      for (const s of ["Moderation", "Translation", "Needs attention", "Flagged records"])
        expect(html).not.toContain(`<h2>${s}`)
      const dir = mkdtempSync(join(tmpdir(), "svc-report-"))
      const files = reportFiles(join(dir, "out.jsonl"))
      yield* writeReport(base, files)
      expect(existsSync(files.html) && existsSync(files.json)).toBe(true)
      expect(existsSync(files.csv)).toBe(false)
      yield* writeReport(nightly, files)
      expect(readFileSync(files.csv, "utf8")).toContain("u-7")
    })
  )

  it("shows the alert and the changes first in a real browser (headless Chromium)", () => {
    const html = renderHtml(alerted)
    expect(html.indexOf('id="attention"')).toBeLessThan(html.indexOf("<h2>Summary"))
    const { dom, screenshot } = openInChromium(html, "1100,900")
    expect(dom).toContain("ALERT: the job's report.fail thresholds were exceeded.")
    expect(dom).toContain("<code>newlyFlagged</code>: 2 (threshold 1)")
    expect(dom).toMatch(/Records: <strong>3<\/strong> added, <strong>1<\/strong> removed, <strong>4<\/strong> edited/)
    expect(dom).toMatch(/<td>u-1<\/td><td>T9<\/td><td>edited<\/td>/)
    expect(dom).toMatch(/<td>T9<\/td><td>2<\/td><td>\+0<\/td><td>−2<\/td><td>0<\/td>/)
    expect(statSync(screenshot).size).toBeGreaterThan(20_000)
  }, 120_000)
})
