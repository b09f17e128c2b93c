/** Reads a ledger another process is writing (read-only; the writer may be mid-transaction). */
import Database from "better-sqlite3"
import { existsSync } from "node:fs"

/** Done records in the ledger so far; 0 while it does not exist or cannot be read yet. */
export const doneInLedger = (path: string): number => {
  if (!existsSync(path)) return 0
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true })
    try {
      return (db.prepare("SELECT count(*) AS n FROM records WHERE status = 'done'").get() as { n: number }).n
    } finally {
      db.close()
    }
  } catch {
    return 0
  }
}

/** Waits until the ledger holds at least `count` done records, looking every `everyMs`. */
export const untilDone = async (path: string, count: number, everyMs = 50): Promise<void> => {
  while (doneInLedger(path) < count) await new Promise((r) => setTimeout(r, everyMs))
}
