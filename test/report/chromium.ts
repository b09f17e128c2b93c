/** Opens a report page in headless Chromium: its DOM as rendered, and a screenshot (PNG path). */
import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export const openInChromium = (html: string, size = "1100,1400") => {
  const dir = mkdtempSync(join(tmpdir(), "svc-report-"))
  const page = join(dir, "report.html")
  writeFileSync(page, html)
  const flags = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
    `--user-data-dir=${join(dir, "profile")}`
  ]
  const dom = execFileSync("chromium", [...flags, "--dump-dom", `file://${page}`], {
    encoding: "utf8",
    timeout: 60_000,
    stdio: ["ignore", "pipe", "ignore"]
  })
  const screenshot = join(dir, "report.png")
  execFileSync("chromium", [...flags, `--window-size=${size}`, `--screenshot=${screenshot}`, `file://${page}`], {
    timeout: 60_000,
    stdio: "ignore"
  })
  return { dom, screenshot }
}
