/**
 * A store table belongs to one job. Two jobs writing one table replace each other's rows, and
 * `cleanup: full` of one deletes every row of the other (its records are not in this job's
 * source), silently. The owner (the job's name) is recorded in the store file itself, in
 * `svc_batch_owners` (table → job), so that every job reading the file sees it: checked before any
 * request (`checkStoreOwner`), and claimed again when the writer opens (`claimTable`, a safety net
 * for two first runs at once). A table written before owners were recorded is adopted by the first
 * job that writes it.
 */
import Database from "better-sqlite3"
import { Data, Effect } from "effect"
import { existsSync } from "node:fs"
import { StoreError, type StoreSettings } from "./vector-store.ts"
import { ExitCode } from "../exit-code.ts"

export class StoreOwned extends Data.TaggedError("StoreOwned")<{
  readonly path: string
  readonly table: string
  readonly owner: string
  readonly job: string
}> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return (
      `vector store ${this.path}: table ${this.table} belongs to job ${this.owner}; job ${this.job} may not write it ` +
      `(it would replace job ${this.owner}'s rows, and with cleanup: full delete them). Give job ${this.job} its own store.path or store.table`
    )
  }
}

const OWNERS = "svc_batch_owners"

const tableExists = (db: Database.Database, name: string) =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(name) !== undefined

/** The job recorded as the table's owner; none for a new store, or one written before owners were. */
const ownerOf = (db: Database.Database, table: string): string | undefined =>
  tableExists(db, OWNERS)
    ? db.prepare<[string], { job: string }>(`SELECT job FROM ${OWNERS} WHERE store_table = ?`).get(table)?.job
    : undefined

/**
 * In the writer's connection, before it creates anything: the table is `job`'s from now on, or
 * StoreOwned is thrown. `adopted`: the table was there without an owner (a store from an earlier
 * version); `new`: this job creates it; `own`: it was this job's already.
 */
export const claimTable = (
  db: Database.Database,
  table: string,
  job: string,
  path: string
): "new" | "adopted" | "own" => {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${OWNERS} (store_table TEXT PRIMARY KEY, job TEXT NOT NULL, since TEXT NOT NULL) WITHOUT ROWID`
  )
  return db
    .transaction(() => {
      const owner = ownerOf(db, table)
      if (owner === job) return "own" as const
      if (owner !== undefined) throw new StoreOwned({ path, table, owner, job })
      const existed = tableExists(db, table)
      db.prepare(`INSERT INTO ${OWNERS} (store_table, job, since) VALUES (?, ?, ?)`).run(
        table,
        job,
        new Date().toISOString()
      )
      return existed ? ("adopted" as const) : ("new" as const)
    })
    .immediate()
}

/** Before any request: the job may write its store's table (no store yet, no owner yet, or its own). */
export const checkStoreOwner = (job: string, settings: StoreSettings): Effect.Effect<void, StoreOwned | StoreError> =>
  Effect.gen(function* () {
    if (!existsSync(settings.path)) return
    const owner = yield* Effect.try({
      try: () => {
        // Read-only, without the vector extension: only the owners table is read.
        const db = new Database(settings.path, { readonly: true, fileMustExist: true })
        try {
          return ownerOf(db, settings.table)
        } finally {
          db.close()
        }
      },
      catch: (e) => new StoreError({ path: settings.path, detail: `cannot read its owner: ${(e as Error).message}` })
    })
    if (owner !== undefined && owner !== job)
      return yield* new StoreOwned({ path: settings.path, table: settings.table, owner, job })
  })
