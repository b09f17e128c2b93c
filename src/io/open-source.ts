/** Picks the source for a file by its format. */
import { type CsvOptions, csvSource } from "./csv-source.ts"
import { jsonlSource } from "./jsonl-source.ts"
import { parquetSource } from "./parquet-source.ts"
import type { Format, Source } from "./source.ts"
import { DefaultEncoding, type Encoding } from "./encoding.ts"

/** `encoding` applies to the text formats; Parquet strings are UTF-8 by the format's definition. */
export const openSource = (path: string, format: Format, encoding: Encoding = DefaultEncoding, csv: CsvOptions = {}): Source =>
  format === "csv" ? csvSource(path, encoding, { unclosedQuote: csv.unclosedQuote }) : format === "jsonl" ? jsonlSource(path, encoding) : parquetSource(path)
