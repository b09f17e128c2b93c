/**
 * Whether an error is the disk failing a write — full, over quota, an I/O error, a file grown
 * past its limit — rather than a ledger that is wrong: by SQLite's result code (better-sqlite3's
 * `code`, extended codes included: SQLITE_IOERR_WRITE, …) or the system's errno code.
 */
const SYSTEM_CODES: ReadonlySet<string> = new Set(["ENOSPC", "EDQUOT", "EIO", "EFBIG"])

const codeOf = (e: unknown): string =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : ""

export const isDiskFailure = (e: unknown): boolean => {
  const code = codeOf(e)
  return code === "SQLITE_FULL" || code === "SQLITE_IOERR" || code.startsWith("SQLITE_IOERR_") || SYSTEM_CODES.has(code)
}

/** The error's message and its code: SQLite's "disk I/O error" alone does not say which (SQLITE_IOERR_WRITE, …). */
export const describeFailure = (e: unknown): string => {
  const message = e instanceof Error ? e.message : String(e)
  const code = codeOf(e)
  return code === "" || message.includes(code) ? message : `${message} (${code})`
}
