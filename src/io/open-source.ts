/** Picks the source for a file by its format. */
import { Effect, Stream } from "effect"
import { type CsvOptions, csvSource } from "./csv-source.ts"
import { jsonlSource } from "./jsonl-source.ts"
import type { Format, Source } from "./source.ts"
import { DefaultEncoding, type Encoding } from "./encoding.ts"

/** Parquet's reader and codecs are loaded only when a Parquet file is read (start-up of the rest). */
const lazyParquetSource = (path: string): Source => {
  const load = () => import("./parquet-source.ts").then((m) => m.parquetSource(path))
  return {
    format: "parquet",
    path,
    columns: () => load().then((s) => s.columns()),
    inputTypes: () => load().then((s) => s.inputTypes?.()),
    items: () => Stream.unwrap(Effect.promise(load).pipe(Effect.map((s) => s.items())))
  }
}

/** `encoding` applies to the text formats; Parquet strings are UTF-8 by the format's definition. */
export const openSource = (
  path: string,
  format: Format,
  encoding: Encoding = DefaultEncoding,
  csv: CsvOptions = {}
): Source =>
  format === "csv"
    ? csvSource(path, encoding, { unclosedQuote: csv.unclosedQuote })
    : format === "jsonl"
      ? jsonlSource(path, encoding)
      : lazyParquetSource(path)
