/**
 * Parquet through hyparquet (+ hyparquet-compressors for zstd, gzip, brotli, lz4): reads what
 * DuckDB and pyarrow write (format version 2, data page v2, dictionary encoding), one row group
 * at a time so memory is bounded by the largest row group, not the file.
 * (parquetjs-lite, the package first named, refuses version-2 files: see README.)
 */
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects, parquetSchema } from "hyparquet"
import { compressors } from "hyparquet-compressors"
import { Effect, Stream } from "effect"
import { type Source, SourceError, type SourceItem, toPlain } from "./source.ts"

export const parquetSource = (path: string): Source => {
  const open = Effect.tryPromise({
    try: async () => {
      const file = await asyncBufferFromFile(path)
      const metadata = await parquetMetadataAsync(file)
      return { file, metadata }
    },
    catch: (e) => new SourceError({ path, detail: `cannot read Parquet: ${(e as Error).message}` })
  })
  return {
    format: "parquet",
    path,
    columns: async () => {
      const file = await asyncBufferFromFile(path)
      const metadata = await parquetMetadataAsync(file)
      return parquetSchema(metadata).children.map((c) => c.element.name)
    },
    inputTypes: async () => {
      const metadata = await parquetMetadataAsync(await asyncBufferFromFile(path))
      return { _tag: "Parquet", schema: metadata.schema.slice(1) }
    },
    items: () =>
      Stream.unwrap(
        open.pipe(
          Effect.map(({ file, metadata }) => {
            const groups: Array<{ start: number; end: number }> = []
            let start = 0
            for (const rg of metadata.row_groups) {
              const n = Number(rg.num_rows)
              groups.push({ start, end: start + n })
              start += n
            }
            return Stream.fromIterable(groups).pipe(
              Stream.mapEffect(({ start: rowStart, end: rowEnd }) =>
                Effect.tryPromise({
                  try: () => parquetReadObjects({ file, metadata, rowStart, rowEnd, compressors }),
                  catch: (e) => new SourceError({ path, detail: `cannot read rows ${rowStart}–${rowEnd}: ${(e as Error).message}` })
                }).pipe(
                  Effect.map((rows) =>
                    rows.map((row, i): SourceItem => ({
                      _tag: "Record",
                      ordinal: rowStart + i,
                      line: rowStart + i + 1,
                      fields: toPlain(row) as Record<string, unknown>
                    }))
                  )
                )
              ),
              Stream.flattenIterables
            )
          })
        )
      )
  }
}
