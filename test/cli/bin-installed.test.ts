/**
 * The bin's choice between dist/ and the sources: a checkout runs the sources when one is newer
 * than the build (never stale code), an installed package (under node_modules) trusts its dist/
 * without walking every source file.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"

const BIN_DIR = new URL("../../src/cli/", import.meta.url)

/** A package at `root`: the bin, a build stamp from 2001 and a source file edited since. */
const lay = (root: string) => {
  mkdirSync(join(root, "src", "cli"), { recursive: true })
  mkdirSync(join(root, "dist"), { recursive: true })
  mkdirSync(join(root, "pipelines"), { recursive: true })
  for (const file of ["bin.mjs", "build-freshness.mjs"])
    copyFileSync(new URL(file, BIN_DIR), join(root, "src", "cli", file))
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "svc-batch", version: "9.8.7", type: "module" }))
  writeFileSync(join(root, "dist", ".built"), "")
  utimesSync(join(root, "dist", ".built"), new Date("2001-01-01"), new Date("2001-01-01"))
  writeFileSync(join(root, "src", "edited.ts"), "export {}\n")
  return spawnSync(process.execPath, [join(root, "src", "cli", "bin.mjs"), "--version"], { encoding: "utf8" })
}

describe("the bin's build check", () => {
  it("installed under node_modules: dist/ is used though a source file is newer", () => {
    const run = lay(join(tempDir(), "node_modules", "svc-batch"))
    expect({ status: run.status, out: run.stdout }).toEqual({ status: 0, out: "9.8.7\n" })
  })

  it("a checkout with a source newer than the build: the sources run (here without tsx, so it fails)", () => {
    const run = lay(join(tempDir(), "checkout"))
    expect(run.status).not.toBe(0)
    expect(run.stderr).toContain("tsx")
  })
})
