/** The sqlite-vec vector store as an adapter of the sink port (the store itself: src/store/sqlite-vec.ts). */
import type { VectorStoreAdapter } from "../sink.ts"
import { openStoreWriter, searchStore, storeSize } from "../../store/sqlite-vec.ts"

export const sqliteVecStore: VectorStoreAdapter = {
  name: "sqlite-vec",
  openWriter: openStoreWriter,
  search: searchStore,
  size: storeSize
}
