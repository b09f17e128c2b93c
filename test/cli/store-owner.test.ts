/**
 * A vector store table belongs to one job: another job pointed at it is refused before any request
 * (exit 2, both named) by run, plan, run --dry-run and check, and the owner's rows stay; a store from
 * before owners were recorded is adopted by the first job that writes it; two processes writing one
 * store file take turns (`<store>.lock`).
 */
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Schema, Scope } from "effect"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { takeLock } from "../../src/io/lock-file.ts"
import { storeSize } from "../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { tempDir } from "../engine/run-helpers.ts"
import { spawnCli } from "./spawn-cli.ts"

const env = { SVC_BASE_URL: undefined, SVC_API_KEY: undefined }

/** Two jobs in one folder, `a` over 30 records and `b` over 10 others, both pointed at out/kb.sqlite. */
const twoJobs = () => {
  const dir = tempDir()
  const job = (name: string, records: number, extra = "") => {
    const lines = Array.from({ length: records }, (_, i) =>
      JSON.stringify({ id: `${name}${i}`, body: `Note ${i} of job ${name} about bread.` })
    )
    writeFileSync(join(dir, `${name}.jsonl`), `${lines.join("\n")}\n`)
    const file = join(dir, `${name}.yaml`)
    writeFileSync(
      file,
      `name: ${name}\ninput: { path: ${name}.jsonl, id: id }\noutput: { path: out/${name}.jsonl }\nstages:\n  - embed: { field: body }\nstore: { path: out/kb.sqlite, text: body${extra} }\nreport: { enabled: false }\n`
    )
    return file
  }
  const store = Schema.decodeUnknownSync(StoreSettings)({ path: join(dir, "out", "kb.sqlite") })
  return { dir, a: job("a", 30), b: job("b", 10, ", cleanup: full"), store }
}

/** Stderr once `pattern` shows there (the CLI's log lines go there), or after a minute. */
const errFor = async (p: ReturnType<typeof spawnCli>, pattern: RegExp) => {
  for (let i = 0; i < 3000 && !pattern.test(p.err()); i++) await new Promise((r) => setTimeout(r, 20))
  return p.err()
}

describe("a vector store table belongs to one job", () => {
  it("another job on the same table is refused before any request by run, plan, run --dry-run and check; the owner's rows stay", async () => {
    const { dir, a, b, store } = twoJobs()
    const first = spawnCli(["run", a], env)
    expect(await first.exited).toBe(0)
    expect(storeSize(store)).toBe(30)

    for (const args of [
      ["run", b],
      ["plan", b],
      ["run", b, "--dry-run"],
      ["check", b]
    ]) {
      const p = spawnCli(args, env)
      expect(await p.exited, args.join(" ")).toBe(2)
      expect(p.err(), args.join(" ")).toContain(
        `svc-batch: vector store ${store.path}: table docs belongs to job a; job b may not write it (it would replace job a's rows, and with cleanup: full delete them). Give job b its own store.path or store.table`
      )
    }
    expect(storeSize(store)).toBe(30)
    expect(existsSync(join(dir, ".svc-batch", "b.ledger.sqlite"))).toBe(false) // no run of b began
    expect(existsSync(join(dir, "out", "b.jsonl"))).toBe(false)
  }, 90_000)

  it("a store written before owners were recorded is adopted by the first job that writes it, said in a log line", async () => {
    const { a, b, store } = twoJobs()
    expect(await spawnCli(["run", a], env).exited).toBe(0)
    // As an earlier version left it: the table, no owner.
    const db = new Database(store.path)
    db.exec("DROP TABLE svc_batch_owners")
    db.close()

    const adopter = spawnCli(["run", b], env)
    expect(await adopter.exited).toBe(0)
    expect(adopter.err()).toContain(
      `vector store ${store.path}: table docs had no owner recorded (written before owners were); job b adopts it`
    )
    expect(storeSize(store)).toBe(10) // b's cleanup: full, its own choice now that the table is b's

    const former = spawnCli(["run", a], env)
    expect(await former.exited).toBe(2)
    expect(former.err()).toContain("table docs belongs to job b; job a may not write it")
  }, 90_000)

  it("a second writer of the store waits for the first (<store>.lock) and writes after it", async () => {
    const { a, store } = twoJobs()
    // This process stands for another writer of the store, holding its lock.
    const scope = Effect.runSync(Scope.make())
    await Effect.runPromise(Scope.extend(takeLock(`${store.path}.lock`), scope))
    const p = spawnCli(["run", a], env)
    const err = await errFor(p, /is being written by/)
    expect(err).toContain(`vector store ${store.path} is being written by process ${process.pid}, started `)
    expect(p.child.exitCode).toBe(null) // still waiting
    expect(existsSync(store.path)).toBe(false) // nothing written while the other writer holds the lock
    await Effect.runPromise(Scope.close(scope, Exit.void))
    expect(await p.exited).toBe(0)
    expect(storeSize(store)).toBe(30)
    expect(existsSync(`${store.path}.lock`)).toBe(false)
  }, 90_000)
})
