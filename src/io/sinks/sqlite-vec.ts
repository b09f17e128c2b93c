/**
 * The sqlite-vec vector store as an adapter of the sink port (the store itself: src/store/sqlite-vec.ts);
 * with `index: hnsw`, an HNSW sidecar index kept in step with the table answers searches (src/store/hnsw-index.ts).
 */
import type { VectorStoreAdapter } from "../sink.ts"
import { openStoreWriter, searchStore, storeSize } from "../../store/sqlite-vec.ts"
import { indexInvalidator, openHnswWriter, searchHnsw } from "../../store/hnsw-index.ts"

export const sqliteVecStore: VectorStoreAdapter = {
  name: "sqlite-vec",
  openWriter: (settings, dim, hooks) =>
    settings.index === "hnsw"
      ? openHnswWriter(settings, dim, hooks)
      : openStoreWriter(settings, dim, { ...hooks, rows: indexInvalidator(settings) }),
  search: (settings, vector, k) =>
    settings.index === "hnsw" ? searchHnsw(settings, vector, k) : searchStore(settings, vector, k),
  size: storeSize
}
