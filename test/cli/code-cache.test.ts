/**
 * The bin's code cache (src/cli/code-cache.mjs): a command's compiled code kept beside the bundle,
 * used by the next such command, never for other code or other flags, never written by a failure.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../engine/run-helpers.ts"

const LOADER = new URL("../../src/cli/code-cache.mjs", import.meta.url).href

/** Runs `bundle` through the loader as command `key`: what it printed and whether a cache was used. */
const run = (bundle: string, key = "run", flags: ReadonlyArray<string> = [], owner = "job.yaml") => {
  // The owner as an argument, not in the code: the code is in execArgv, which names the cache.
  const code = `import { runBundle } from ${JSON.stringify(LOADER)}; const r = runBundle(process.argv[1], ${JSON.stringify(key)}, process.argv[2]); process.stderr.write(JSON.stringify(r))`
  const r = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", code, bundle, owner], {
    encoding: "utf8"
  })
  return { status: r.status, out: r.stdout, cached: (JSON.parse(r.stderr) as { cached: boolean }).cached }
}

/** A CommonJS bundle that prints `word` with what a module sees (require, __filename, module). */
const bundleIn = (dir: string, word: string, exitCode = 0) => {
  const file = join(dir, "main.cjs")
  writeFileSync(
    file,
    `"use strict"\nconst say = (w) => w + " " + require("node:path").basename(__filename) + " " + typeof module.exports\nprocess.stdout.write(say(${JSON.stringify(word)}))\nprocess.exitCode = ${exitCode}\n`
  )
  return file
}
const caches = (dir: string) => readdirSync(join(dir, "cache")).filter((f) => f.endsWith(".v8"))

describe("the bin's code cache", () => {
  it("a command that ends with 0 writes its cache; the next such command uses it", () => {
    const dir = tempDir()
    const bundle = bundleIn(dir, "hello")
    expect(run(bundle)).toEqual({ status: 0, out: "hello main.cjs object", cached: false })
    expect(caches(dir)).toHaveLength(1)
    expect(run(bundle)).toEqual({ status: 0, out: "hello main.cjs object", cached: true })
    // Each command has its own (what one compiles is not what another needs).
    expect(run(bundle, "status").cached).toBe(false)
    expect(caches(dir)).toHaveLength(2)
  })

  it("a command that fails writes none", () => {
    const dir = tempDir()
    const bundle = bundleIn(dir, "oops", 3)
    expect(run(bundle)).toMatchObject({ status: 3, cached: false })
    expect(readdirSync(dir)).toEqual(["main.cjs"])
  })

  it("a rebuilt bundle of the same length never runs the old code", () => {
    const dir = tempDir()
    const bundle = bundleIn(dir, "old")
    run(bundle)
    expect(run(bundle).cached).toBe(true)
    // V8 checks a cache against the source's length only: the same length, another program.
    bundleIn(dir, "new")
    utimesSync(bundle, new Date(), new Date(Date.now() + 5_000))
    expect(run(bundle)).toEqual({ status: 0, out: "new main.cjs object", cached: false })
  })

  it("other heap flags get a cache of their own (V8 rejects one made under others)", () => {
    const dir = tempDir()
    const bundle = bundleIn(dir, "hello")
    run(bundle)
    expect(run(bundle, "run", ["--max-semi-space-size=8"]).cached).toBe(false)
    expect(run(bundle, "run", ["--max-semi-space-size=8"]).cached).toBe(true)
    expect(run(bundle).cached).toBe(true)
  })

  it("a damaged cache is not used, and is written again", () => {
    const dir = tempDir()
    const bundle = bundleIn(dir, "hello")
    run(bundle)
    writeFileSync(join(dir, "cache", caches(dir)[0]!), "not a code cache")
    expect(run(bundle)).toEqual({ status: 0, out: "hello main.cjs object", cached: false })
    expect(run(bundle).cached).toBe(true)
  })

  it("a cache written for another job is used, and written again for this one; its own is kept as it is", () => {
    const dir = tempDir()
    const bundle = bundleIn(dir, "hello")
    run(bundle, "run", [], "a.yaml")
    const file = join(dir, "cache", caches(dir)[0]!)
    const forA = readFileSync(file)
    expect(run(bundle, "run", [], "b.yaml").cached).toBe(true)
    expect(caches(dir)).toHaveLength(1)
    const forB = readFileSync(file)
    expect(forB.equals(forA)).toBe(false)
    expect(run(bundle, "run", [], "b.yaml").cached).toBe(true)
    expect(readFileSync(file).equals(forB)).toBe(true)
  })

  it("a long command's cache still holds its start-up: the bin's flags keep V8 from flushing it", () => {
    // --stress-flush-code makes every collection flush what has not run since, as a long job's
    // hundreds of collections do to its start-up code (a 20-record run on the cache a 20k-record
    // run wrote: 0.90 s, against 0.68 s).
    const shebang = readFileSync(new URL("../../src/cli/bin.mjs", import.meta.url), "utf8").split("\n")[0]!
    const binFlags = shebang.split(" ").filter((w) => w.startsWith("--"))
    const dir = tempDir()
    const bundle = join(dir, "main.cjs")
    const functions = Array.from(
      { length: 200 },
      (_, i) => `function f${i}(x) { let s = 0; for (let j = 0; j < x; j++) s += j * ${i}; return s }`
    )
    // Start-up runs every function once; then the command works on, collecting garbage.
    writeFileSync(
      bundle,
      `${functions.join("\n")}\nlet t = 0\n${functions.map((_, i) => `t += f${i}(3)`).join("\n")}\nfor (let i = 0; i < 5; i++) { Array.from({ length: 100000 }, (_, k) => ({ k })); global.gc() }\n`
    )
    const cacheBytes = (flags: ReadonlyArray<string>) => {
      expect(run(bundle, "run", ["--expose-gc", "--stress-flush-code", ...flags]).status).toBe(0)
      const [file] = caches(dir)
      const bytes = readFileSync(join(dir, "cache", file!)).length
      rmSync(join(dir, "cache"), { recursive: true })
      return bytes
    }
    const flushed = cacheBytes([])
    const kept = cacheBytes(binFlags)
    expect(kept).toBeGreaterThan(1.5 * flushed)
    expect(binFlags).toContain("--no-flush-bytecode")
  })
})
