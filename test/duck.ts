/** Runs SQL in an in-memory DuckDB (tests read Parquet back as real tools do). */
import { DuckDBInstance } from "@duckdb/node-api"

export const duck = async (sql: string) => {
  const db = await DuckDBInstance.create(":memory:")
  const conn = await db.connect()
  const rows = (await conn.runAndReadAll(sql)).getRowObjectsJS()
  conn.closeSync()
  return rows
}
