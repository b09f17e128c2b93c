/**
 * What every command compiles before it starts: the bundle's static import graph from
 * src/cli/main.ts. Libraries only some jobs need are loaded when used (Parquet's reader and writer,
 * the emulator's models, undici on the first request), so they must not be in it.
 */
import { describe, expect, it } from "@effect/vitest"
import { build, type Metafile } from "esbuild"
import { readFileSync } from "node:fs"

const root = new URL("../..", import.meta.url).pathname
// The externals and aliases of `npm run build`, read from the script so this test builds what it builds.
const buildScript: string = JSON.parse(readFileSync(`${root}package.json`, "utf8")).scripts.build
const externals = [...buildScript.matchAll(/--external:(\S+)/g)].map((m) => m[1] as string)
const alias = Object.fromEntries(
  [...buildScript.matchAll(/--alias:([^=\s]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string])
)

/** The bundle's inputs reached from `entry` by static imports, and the external packages they import statically. */
const staticGraph = (
  meta: Metafile,
  entry: string
): { readonly inputs: Set<string>; readonly externals: Set<string> } => {
  const seen = new Set([entry])
  const externals = new Set<string>()
  const queue = [entry]
  while (queue.length > 0) {
    for (const i of meta.inputs[queue.shift()!]?.imports ?? []) {
      if (i.kind === "dynamic-import" || seen.has(i.path)) continue
      if (i.external) {
        externals.add(i.path)
        continue
      }
      seen.add(i.path)
      queue.push(i.path)
    }
  }
  return { inputs: seen, externals }
}

describe("start-up modules", () => {
  it("main.ts reaches Parquet, undici, ajv, the emulator and sqlite-vec only when used, TOML and INI never", async () => {
    const result = await build({
      entryPoints: [`${root}src/cli/main.ts`],
      absWorkingDir: root,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: "out/start-up-modules",
      write: false,
      metafile: true,
      logLevel: "silent",
      external: externals,
      alias
    })
    const graph = staticGraph(result.metafile, "src/cli/main.ts")
    const inputs = [...graph.inputs]
    const loaded = (prefix: string) => inputs.filter((p) => p.startsWith(prefix))
    // @effect/cli's TOML and INI parsers (config-file options svc-batch does not offer) are stubbed out.
    for (const lazy of [
      "node_modules/toml/",
      "node_modules/ini/",
      "node_modules/hyparquet",
      "node_modules/undici/",
      "node_modules/ajv",
      "node_modules/stopword",
      "src/emulator/server.ts",
      "src/service/http-undici.ts",
      "src/io/sources/parquet.ts",
      "src/io/sinks/parquet.ts",
      // The PostgreSQL client and pg-boss, only for a job whose ledger is on a server.
      "node_modules/pg",
      "node_modules/pg-boss"
    ]) {
      expect(loaded(lazy), lazy).toEqual([])
    }
    // The vector store's extension is required when a store is opened (~20 ms a command otherwise).
    expect([...graph.externals].filter((e) => e.startsWith("sqlite-vec"))).toEqual([])
    // The check is not vacuous: the graph holds what every command needs.
    expect(graph.externals.has("better-sqlite3")).toBe(true)
    expect(loaded("node_modules/effect/").length).toBeGreaterThan(100)
    expect(loaded("src/engine/runner.ts")).toHaveLength(1)
  }, 60_000)
})
