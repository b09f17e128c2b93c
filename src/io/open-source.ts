/** Picks the source for a file by its format. */
import { csvSource } from "./csv-source.ts"
import { jsonlSource } from "./jsonl-source.ts"
import { parquetSource } from "./parquet-source.ts"
import type { Format, Source } from "./source.ts"

export const openSource = (path: string, format: Format): Source =>
  format === "csv" ? csvSource(path) : format === "jsonl" ? jsonlSource(path) : parquetSource(path)
