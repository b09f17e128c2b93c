/**
 * What every command evaluates before it starts: the bundle's static import graph from
 * src/cli/main.ts (the bin's bundle is one CommonJS file, where a module reached by `import()` is
 * evaluated when imported). Libraries only some jobs need are loaded when used (Parquet's reader and writer,
 * the emulator's models, undici on the first request), so they must not be in it. Each command is
 * imported when asked for (src/cli/commands.ts): a light one loads its own graph, not `run`'s.
 */
import { describe, expect, it } from "@effect/vitest"
import { build, type Metafile } from "esbuild"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

const root = new URL("../..", import.meta.url).pathname
// The externals and aliases of `npm run build`, read from the script so this test builds what it builds.
const buildScript: string = JSON.parse(readFileSync(`${root}package.json`, "utf8")).scripts.build
const externals = [...buildScript.matchAll(/--external:(\S+)/g)].map((m) => m[1] as string)
const alias = Object.fromEntries(
  [...buildScript.matchAll(/--alias:([^=\s]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string])
)

/** An input's path from the package root: node_modules may be a link to another checkout's (a worktree). */
const fromRoot = (path: string) => path.replace(/^(?:\.\.\/)+(?:[^/]+\/)*?node_modules\//, "node_modules/")

/** The bundle's inputs reached from `entries` by static imports, and the external packages they import statically. */
const staticGraph = (
  meta: Metafile,
  ...entries: ReadonlyArray<string>
): { readonly inputs: Set<string>; readonly externals: Set<string> } => {
  const seen = new Set(entries)
  const externals = new Set<string>()
  const queue = [...entries]
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
  return { inputs: new Set([...seen].map(fromRoot)), externals }
}

const bundled = () =>
  build({
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

/** The bin's bundle as `npm run build` makes it: CommonJS, one file (run through vm.Script, src/cli/code-cache.mjs). */
const bundledAsBuilt = () =>
  build({
    entryPoints: [`${root}src/cli/main.ts`],
    absWorkingDir: root,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outfile: "out/start-up-modules/main.cjs",
    write: false,
    metafile: true,
    logLevel: "silent",
    external: externals,
    alias,
    define: { "import.meta.url": "__svcImportMetaUrl" }
  })

/** What `svc-batch <command>` compiles before it starts: main.ts's static graph and the command's. */
const graphOf = (meta: Metafile, command: string) =>
  staticGraph(meta, "src/cli/main.ts", `src/cli/${command}-command.ts`)

describe("start-up modules", () => {
  it("the bin's bundle has no import() left: code run through vm.Script has no loader for one", async () => {
    const { metafile, errors } = await bundledAsBuilt()
    expect(errors).toEqual([])
    const imports = Object.values(metafile.outputs).flatMap((o) => o.imports)
    expect(imports.filter((i) => i.kind === "dynamic-import").map((i) => i.path)).toEqual([])
    // Not vacuous: the externals are there, required.
    expect(imports.filter((i) => i.path === "better-sqlite3").map((i) => i.kind)).toContain("require-call")
    // undici through its stand-in (scripts/bundle-stubs/undici-agent.cjs): the Agent, not fetch and the rest.
    const undici = Object.keys(metafile.inputs)
      .map(fromRoot)
      .filter((p) => p.startsWith("node_modules/undici/"))
    expect(undici).toContain("node_modules/undici/lib/dispatcher/agent.js")
    const left = ["index.js", "lib/web/fetch/index.js", "lib/web/websocket/", "lib/web/cookies/", "lib/mock/"]
    expect(undici.filter((p) => left.some((l) => p.startsWith(`node_modules/undici/${l}`)))).toEqual([])
  }, 60_000)

  it("undici's stand-in gives a composed Agent the request API the HTTP client calls", async () => {
    const server = createServer((_, res) => res.end("answered"))
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    const { port } = server.address() as AddressInfo
    // A process of its own: undici's index loaded here would put the API on the Agent for the stand-in.
    const code = `const { Agent } = require(${JSON.stringify(`${root}scripts/bundle-stubs/undici-agent.cjs`)}); const a = new Agent().compose((d) => d); a.request({ origin: "http://127.0.0.1:${port}", path: "/", method: "GET" }).then((r) => r.body.text()).then((t) => { process.stdout.write(t); return a.close() })`
    const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (out += d))
    await new Promise((r) => child.on("exit", r))
    server.close()
    expect(out).toBe("answered")
  }, 20_000)

  it("run reaches Parquet, undici, ajv, the emulator and sqlite-vec only when used, TOML and INI never", async () => {
    const graph = graphOf((await bundled()).metafile, "run")
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
    // The check is not vacuous: the graph holds what a run needs.
    expect(graph.externals.has("better-sqlite3")).toBe(true)
    expect(loaded("node_modules/effect/").length).toBeGreaterThan(100)
    expect(loaded("src/engine/runner.ts")).toHaveLength(1)
  }, 60_000)

  it("each command is imported when asked for: status and runs load neither the engine, the emulator, the report's renderers nor the cluster", async () => {
    const meta = (await bundled()).metafile
    const main = [...staticGraph(meta, "src/cli/main.ts").inputs]
    expect(main.filter((p) => p.endsWith("-command.ts"))).toEqual([])
    const heavy = [
      "src/engine/runner.ts",
      "src/engine/records/",
      "src/engine/flow/",
      "src/engine/output/",
      "src/emulator/server.ts",
      "src/report/render-html.ts",
      "src/cluster/coordinator.ts"
    ]
    for (const command of ["status", "runs"]) {
      const graph = graphOf(meta, command)
      const inputs = [...graph.inputs]
      for (const prefix of heavy)
        expect(
          inputs.filter((p) => p.startsWith(prefix)),
          `${command}: ${prefix}`
        ).toEqual([])
      // Not vacuous: the command, the job's context and the ledger are there…
      expect(inputs).toContain(`src/cli/${command}-command.ts`)
      expect(inputs).toContain("src/job/job-context.ts")
      expect(graph.externals.has("better-sqlite3")).toBe(true)
    }
    // … and `run`'s graph has what theirs lack.
    const run = [...graphOf(meta, "run").inputs]
    for (const prefix of heavy.filter((p) => p !== "src/emulator/server.ts"))
      expect(run.filter((p) => p.startsWith(prefix)).length, prefix).toBeGreaterThan(0)
  }, 60_000)
})
