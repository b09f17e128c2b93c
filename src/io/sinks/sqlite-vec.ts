/**
 * The sqlite-vec vector store as an adapter of the sink port (the store itself: src/store/sqlite-vec.ts);
 * with `index: hnsw`, an HNSW sidecar index kept in step with the table answers searches (src/store/hnsw-index.ts).
 */
import type { VectorStoreAdapter } from "../sink.ts"
import { searchStore, storeSize, storeState } from "../../store/sqlite-vec.ts"
import { indexInvalidation, openHnswWriter, searchHnsw } from "../../store/hnsw-index.ts"
import { openThreadedStoreWriter } from "../../store/store-write-thread.ts"

export const sqliteVecStore: VectorStoreAdapter = {
  name: "sqlite-vec",
  openWriter: (settings, dim, hooks) =>
    settings.index === "hnsw"
      ? openHnswWriter(settings, dim, hooks)
      : // The index's listener runs on the writer's connection: `hnsw` keeps the in-thread writer.
        openThreadedStoreWriter(settings, dim, { ...hooks, invalidate: indexInvalidation(settings) }),
  search: (settings, vector, k) =>
    settings.index === "hnsw" ? searchHnsw(settings, vector, k) : searchStore(settings, vector, k),
  // An HNSW sidecar index is a file of its own: its state is not told by the table's.
  state: (settings, pass) => (settings.index === "hnsw" ? undefined : storeState(settings, pass)),
  size: storeSize
}
