/** The sinks an output can name. A new sink: one file in this folder, one line here. */
import type { SinkAdapter } from "../sink.ts"
import { csvSink } from "./csv.ts"
import { jsonlSink } from "./jsonl.ts"
import { parquetSink } from "./parquet.ts"

export const sinks: Readonly<Record<string, SinkAdapter>> = {
  csv: csvSink,
  jsonl: jsonlSink,
  parquet: parquetSink
}

export const sinkFor = (name: string): SinkAdapter | undefined => sinks[name]
