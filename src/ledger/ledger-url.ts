/**
 * A PostgreSQL ledger's URL (`postgres://user:password@host:5432/db`): recognised, and shown
 * without its password wherever it is printed, logged or stored (`redactUrl`), and named by its
 * host in the one line that says the server cannot be reached.
 */

/** Whether `location` names a PostgreSQL server rather than a SQLite file. */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location.trim())

const parse = (url: string): URL | undefined => {
  try {
    return new URL(url.trim())
  } catch {
    return undefined
  }
}

/** Query parameters that carry a secret (libpq's and pg's names). */
const SECRET_PARAMS = ["password", "sslpassword", "sslkey"]

/**
 * The URL with its password (and any secret query parameter) replaced by `***`. A URL that cannot
 * be parsed is shown as its scheme alone: nothing of it can be told safe to print.
 */
export const redactUrl = (url: string): string => {
  const u = parse(url)
  if (u === undefined) return `${url.trim().split(":")[0] ?? "postgres"}://(unreadable URL)`
  if (u.password !== "") u.password = "***"
  for (const name of SECRET_PARAMS) if (u.searchParams.has(name)) u.searchParams.set(name, "***")
  return u.toString()
}

/** The server a URL names, `host:port` (5432 when none is given), for messages. */
export const urlHost = (url: string): string => {
  const u = parse(url)
  if (u === undefined) return "(unreadable URL)"
  const host = u.hostname !== "" ? decodeURIComponent(u.hostname) : (u.searchParams.get("host") ?? "localhost")
  return `${host}:${u.port !== "" ? u.port : "5432"}`
}
