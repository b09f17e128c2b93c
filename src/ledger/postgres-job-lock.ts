/**
 * A job's lock in a PostgreSQL ledger's database: a session advisory lock on a connection of its
 * own, held for the scope. Every machine whose ledger is that database sees it (a lock file sees
 * only its disk), and PostgreSQL lets it go when the holder's connection ends — a process killed,
 * a machine lost — with no heartbeat of ours to go stale. Its holder names itself in
 * `application_name`, so a refused invocation can say who holds it.
 */
import { createHash } from "node:crypto"
import { hostname } from "node:os"
import { Data, Effect } from "effect"
import type { LedgerError } from "./ledger.ts"
import { redactUrl } from "./ledger-url.ts"
import { postgresFailure } from "./postgres-pool.ts"

/** The lock is held by another session, described for a message. */
export class PostgresLockHeld extends Data.TaggedError("PostgresLockHeld")<{
  readonly lock: string
  readonly owner: string
}> {}

/** The advisory lock's 64-bit key for `name`, as the two 32-bit halves pg_locks shows it by. */
export const advisoryKey = (name: string) => {
  const digest = createHash("sha256").update(`svc-batch job ${name}`).digest()
  return { hi: digest.readInt32BE(0), lo: digest.readInt32BE(4), key: digest.readBigInt64BE(0) }
}

/** Who holds the key: the application_name its holder set, and where it connects from. */
const HOLDER = `
  SELECT a.application_name AS name, a.client_addr::text AS addr
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.classid::int = $1 AND l.objid::int = $2 AND l.objsubid = 1
  LIMIT 1`

/**
 * One attempt at the job's lock, held until the scope closes (then unlocked and the connection
 * ended). Fails with PostgresLockHeld when another session holds it, with a LedgerError (exit 10
 * when unreachable) when the server cannot be asked.
 */
export const holdPostgresJobLock = (url: string, job: string) => {
  const failure = postgresFailure(url)
  const where = `PostgreSQL advisory lock "svc-batch job ${job}" at ${redactUrl(url)}`
  const { hi, lo, key } = advisoryKey(job)
  const me = `svc-batch process ${process.pid} on ${hostname()}`.slice(0, 63)
  return Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        // Imported here: a run that never names a PostgreSQL server never loads its client.
        const pg = (await import("pg")).default
        const client = new pg.Client({ connectionString: url, application_name: me, connectionTimeoutMillis: 10_000 })
        // A connection lost later ends the lock with it; the ledger's own connections report the loss.
        client.on("error", () => undefined)
        await client.connect()
        try {
          const taken = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [
            key.toString()
          ])
          if (taken.rows[0]?.ok === true) return { client, held: undefined }
          const holder = await client.query<{ name: string; addr: string | null }>(HOLDER, [hi, lo])
          const row = holder.rows[0]
          await client.end()
          return {
            client: undefined,
            held: row === undefined ? "another session" : `${row.name}${row.addr === null ? "" : ` (from ${row.addr})`}`
          }
        } catch (e) {
          await client.end().catch(() => undefined)
          throw e
        }
      },
      catch: (e): LedgerError => failure(`taking the job's lock`)(e)
    }),
    ({ client }) =>
      client === undefined
        ? Effect.void
        : Effect.promise(() =>
            client
              .query("SELECT pg_advisory_unlock($1::bigint)", [key.toString()])
              .then(
                () => client.end(),
                () => client.end()
              )
              .catch(() => undefined)
          )
  ).pipe(
    Effect.flatMap(({ held }) =>
      held === undefined ? Effect.succeed(where) : Effect.fail(new PostgresLockHeld({ lock: where, owner: held }))
    )
  )
}
