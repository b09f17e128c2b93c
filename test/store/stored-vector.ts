/** A record's vector as a sqlite-vec store keeps it (Float32), read straight from its table. */
import { Schema } from "effect"
import { openStoreDatabase } from "../../src/store/sqlite-vec.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"

export const storedVector = (path: string, key: string, table = "docs"): Array<number> => {
  const db = openStoreDatabase(Schema.decodeUnknownSync(StoreSettings)({ path, table }), { create: false })
  try {
    const row = db.prepare(`SELECT embedding FROM ${table} WHERE key = ?`).get(key) as { embedding: Buffer }
    return [...new Float32Array(row.embedding.buffer, row.embedding.byteOffset, row.embedding.byteLength / 4)]
  } finally {
    db.close()
  }
}
