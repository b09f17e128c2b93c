/**
 * What every PostgreSQL user here (the ledger, the cluster's shared rate) does the same way: a
 * `pg` pool for a scope, a failure as a LedgerError that shows the URL redacted and, when the
 * server cannot be reached, says so (`unreachable`, exit 10) naming its host, never the password;
 * and a schema migrated once, under an advisory lock, by whichever machine gets it first.
 */
import { Effect, type Scope } from "effect"
import type { Pool } from "pg"
import { LedgerError } from "./ledger.ts"
import { redactUrl, urlHost } from "./ledger-url.ts"

/** Errors that mean the server is not there or will not let us in (rather than a wrong ledger). */
const NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE"
])
const codeOf = (e: unknown): string =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : ""
const partsOf = (e: unknown): ReadonlyArray<unknown> => (e instanceof AggregateError ? [e, ...e.errors] : [e])
/**
 * SQLSTATE classes 08 (connection), 28 (authorization: password refused), 3D000 (no such
 * database), 57P01–57P03 (shutting down, cannot connect now); and node-postgres's own words for a
 * connection lost or never made.
 */
export const isUnreachable = (e: unknown): boolean =>
  partsOf(e).some((p) => {
    const code = codeOf(p)
    const message = p instanceof Error ? p.message : String(p)
    return (
      NETWORK_CODES.has(code) ||
      code.startsWith("08") ||
      code.startsWith("28") ||
      code === "3D000" ||
      /^57P0[123]$/.test(code) ||
      /Connection terminated|timeout exceeded when trying to connect|Connection ended|connect ECONNREFUSED/i.test(
        message
      )
    )
  })
/** Class 53: the server is out of disk or memory (the ledger is sound; exit 9 as a full disk is). */
const isResourceFailure = (e: unknown): boolean => codeOf(e).startsWith("53")
const describe = (e: unknown): string => {
  const messages = partsOf(e)
    .map((p) => (p instanceof Error ? p.message : String(p)))
    .filter((m) => m !== "")
  const code = codeOf(e)
  const text = [...new Set(messages)].join("; ") || "unknown error"
  return code === "" || text.includes(code) ? text : `${text} (${code})`
}

/** `failure(url)(what)(e)`: the LedgerError for `e`, met while doing `what` on the server at `url`. */
export const postgresFailure =
  (url: string) =>
  (what: string) =>
  (e: unknown): LedgerError =>
    new LedgerError({
      path: redactUrl(url),
      detail: isUnreachable(e)
        ? `cannot reach PostgreSQL at ${urlHost(url)}: ${describe(e)}`
        : `${what}: ${describe(e)}`,
      ...(isUnreachable(e) ? { unreachable: true } : isResourceFailure(e) ? { io: true } : {}),
      cause: e
    })

/** bigint (ms timestamps, ids, counts) as numbers: all stay far below 2^53. */
const INT8_OID = 20

export interface PostgresPoolOptions {
  readonly url: string
  readonly max: number
  /** How long to wait for a connection before the server counts as unreachable (ms). */
  readonly connectTimeoutMs: number
  /** Read bigint columns as numbers (else as strings, pg's default). */
  readonly int8AsNumber?: boolean
}

/** A pool for the scope; connections are made on first use (so this never fails). */
export const openPostgresPool = (options: PostgresPoolOptions): Effect.Effect<Pool, never, Scope.Scope> =>
  Effect.gen(function* () {
    // Imported here: a run that never names a PostgreSQL server never loads its client.
    const pg = (yield* Effect.promise(() => import("pg"))).default
    return yield* Effect.acquireRelease(
      Effect.sync(() => {
        const created = new pg.Pool({
          connectionString: options.url,
          max: options.max,
          connectionTimeoutMillis: options.connectTimeoutMs,
          ...(options.int8AsNumber === true
            ? {
                types: {
                  getTypeParser: ((oid: number, format?: "text" | "binary") =>
                    oid === INT8_OID && format !== "binary"
                      ? (v: string) => Number(v)
                      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
                }
              }
            : {})
        })
        // An idle connection the server dropped: the next query reconnects, or fails and says so.
        created.on("error", () => undefined)
        return created
      }),
      (p) => Effect.promise(() => p.end().catch(() => undefined))
    )
  })

export interface SchemaMigrations {
  /** The advisory lock's name: one machine migrates, the others wait and then find it done. */
  readonly lock: string
  /** The one-row table holding the schema's version. */
  readonly versionTable: string
  /** What the schema is called in the error when it is newer than this build ("schema"). */
  readonly label: string
  readonly migrations: ReadonlyArray<string>
}

/** Brings a schema to this build's version, in one transaction; a newer schema is an error. */
export const migrateOnce = async (pool: Pool, schema: SchemaMigrations): Promise<void> => {
  const { migrations, versionTable } = schema
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [schema.lock])
    await client.query(`CREATE TABLE IF NOT EXISTS ${versionTable} (version integer NOT NULL)`)
    const found = await client.query<{ version: number }>(`SELECT version FROM ${versionTable}`)
    if (found.rows.length === 0) await client.query(`INSERT INTO ${versionTable} (version) VALUES (0)`)
    const version = found.rows[0]?.version ?? 0
    if (version > migrations.length)
      throw new Error(
        `its ${schema.label} is version ${version}, newer than this svc-batch knows (${migrations.length}): upgrade svc-batch`
      )
    for (let v = version; v < migrations.length; v++) await client.query(migrations[v]!)
    await client.query(`UPDATE ${versionTable} SET version = $1`, [migrations.length])
    await client.query("COMMIT")
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw e
  } finally {
    client.release()
  }
}
