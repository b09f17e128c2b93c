/** The sinks an output can name, and the vector stores. A new sink or store: one file in this folder, one line here. */
import { Effect } from "effect"
import type { SinkAdapter, VectorStoreAdapter } from "../sink.ts"
import { csvSink } from "./csv.ts"
import { jsonlSink } from "./jsonl.ts"
import { sqliteVecStore } from "./sqlite-vec.ts"

/**
 * Parquet's writer (hyparquet-writer and its codecs, a third of the bundle) is loaded only by a job
 * that writes Parquet: every other command starts without compiling it.
 */
const loadParquet = Effect.promise(() => import("./parquet.ts"))
const lazyParquetSink: SinkAdapter = {
  name: "parquet",
  extensions: [".parquet"],
  needs: "types",
  open: (spec) => Effect.flatMap(loadParquet, (m) => m.parquetSink.open(spec)),
  check: (spec, sample) => Effect.flatMap(loadParquet, (m) => m.parquetSink.check?.(spec, sample) ?? Effect.succeed([]))
}

export const sinks: Readonly<Record<string, SinkAdapter>> = {
  csv: csvSink,
  jsonl: jsonlSink,
  parquet: lazyParquetSink
}

export const sinkFor = (name: string): SinkAdapter | undefined => sinks[name]

/** The vector stores a job's `store.format` can name. */
export const vectorStores: Readonly<Record<string, VectorStoreAdapter>> = {
  "sqlite-vec": sqliteVecStore
}

export const vectorStoreFor = (name: string): VectorStoreAdapter | undefined => vectorStores[name]
