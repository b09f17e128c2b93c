/** The report's renderings: Markdown, self-contained HTML (escaped), CSV, and a real browser opening the page. */
import { describe, expect, it } from "@effect/vitest"
import { stringify } from "csv-stringify/sync"
import fc from "fast-check"
import { statSync } from "node:fs"
import { openInChromium } from "./chromium.ts"
import { flaggedCsv } from "../../src/report/flagged-csv.ts"
import { renderHtml } from "../../src/report/render-html.ts"
import { renderMarkdown } from "../../src/report/render-markdown.ts"
import type { RunReport } from "../../src/report/run-report.ts"

const report: RunReport = {
  job: "nightly",
  runId: 7,
  status: "finished",
  startedAt: Date.UTC(2026, 10, 22, 3, 0, 0),
  finishedAt: Date.UTC(2026, 10, 22, 3, 1, 30),
  durationMs: 90_000,
  service: "emulator",
  inputAvailable: true,
  records: { total: 1203, done: 1200, failed: 2, unreadable: 1 },
  failures: [{ stage: "moderate", status: "BadRequestError", count: 2, example: "400 Bad Request" }],
  requests: 800,
  cacheHits: 400,
  tokens: 91234,
  retries: 3,
  rateLimited: 1,
  stageCounters: {},
  moderation: {
    safe: 1150,
    harmful: 49,
    unparsed: 1,
    empty: 2,
    categories: [
      { code: "T6", name: "個人情報漏洩", gloss: "leak of personal information", count: 30, share: 30 / 49 },
      { code: "T9", name: "危険行為の幇助", gloss: "aiding dangerous acts", count: 19, share: 19 / 49 }
    ],
    cooccurring: [{ codes: "T6+T9", count: 4 }],
    flagged: [
      { key: "p-1", verdict: "harmful", categories: ["T6"], excerpt: "<script>alert('x')</script> my card" },
      { key: "p-2", verdict: "unparsed", categories: [], raw: "I cannot say" }
    ],
    changes: {
      previousRunId: 6,
      newlyFlagged: [{ key: "p-1", verdict: "harmful", categories: ["T6"] }],
      noLongerFlagged: ["p-9"],
      categoryDeltas: [{ code: "T6", before: 29, after: 30 }]
    },
    trend: [
      { runId: 6, startedAt: Date.UTC(2026, 10, 21, 3), records: 1200, harmful: 48 },
      { runId: 7, startedAt: Date.UTC(2026, 10, 22, 3), records: 1200, harmful: 49 }
    ]
  }
}

describe("report rendering", () => {
  it("escapes every value in the HTML and fetches nothing", () => {
    const html = renderHtml(report)
    expect(html).not.toContain("<script>")
    expect(html).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; my card")
    expect(html).not.toMatch(/\b(src|href)=/)
    expect(html).toContain("EMULATOR")
  })

  it("writes Markdown with the summary, categories, changes and the unparsed verdict's raw text", () => {
    const md = renderMarkdown(report)
    expect(md).toContain("| 1203 | 1200 | 2 | 1 | 800 | 400 | 91234 | 3 | 1 |")
    expect(md).toContain("| T6 | 個人情報漏洩 | leak of personal information | 30 | 61.2 % |")
    expect(md).toContain("1 newly flagged, 1 no longer flagged.")
    expect(md).toContain("| p-2 | unparsed |  | raw: I cannot say |")
  })

  it("lists flagged records in CSV", () => {
    expect(flaggedCsv(report)).toBe(
      "\uFEFFid,verdict,categories,text\np-1,harmful,T6,<script>alert('x')</script> my card\np-2,unparsed,,I cannot say\n"
    )
  })

  it("writes the flagged CSV csv-stringify writes with its defaults, for any text (quotes, commas, CR, LF)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "é", '"', ",", "\r", "\n", " ", "x", "\t", "'", "=") })
    fc.assert(
      fc.property(
        fc.array(fc.record({ key: text, verdict: text, categories: fc.array(text, { maxLength: 3 }), excerpt: text }), {
          maxLength: 6
        }),
        (flagged) => {
          const r = { ...report, moderation: { ...report.moderation!, flagged } }
          const expected = `\uFEFF${stringify(
            flagged.map((f) => [f.key, f.verdict, f.categories.join(","), f.excerpt]),
            { header: true, columns: ["id", "verdict", "categories", "text"] }
          )}`
          expect(flaggedCsv(r)).toBe(expected)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("opens in a real browser (headless Chromium) with its figures and charts", () => {
    const { dom, screenshot: shot } = openInChromium(renderHtml(report))
    expect(dom).toContain("nightly — run 7")
    expect(dom).toMatch(/<td>1150<\/td><td>49<\/td><td>1<\/td>/)
    expect(dom).toContain("1</strong> newly flagged")
    expect((dom.match(/<rect /g) ?? []).length).toBe(4) // two category bars, two trend bars
    expect(statSync(shot).size).toBeGreaterThan(20_000)
  }, 120_000)
})
