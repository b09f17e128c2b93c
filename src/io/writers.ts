/**
 * Output writers. Every file is written to a temporary name beside its destination and renamed
 * into place only when complete, so an interrupted job never leaves a half-written output.
 */
import { stringify } from "csv-stringify/sync"
import { fileWriter, ParquetWriter, schemaFromColumnData } from "hyparquet-writer"
import { createWriteStream, mkdirSync, renameSync, rmSync, type WriteStream } from "node:fs"
import { dirname } from "node:path"
import type { Format } from "./source.ts"

export interface RowWriter {
  readonly write: (row: Record<string, unknown>) => Promise<void>
  /** Finishes the file and moves it into place. */
  readonly commit: () => Promise<void>
  /** Removes the temporary file. */
  readonly abort: () => void
}

const tempPath = (path: string) => `${path}.tmp-${process.pid}`

/** A stream that respects backpressure. */
const textFile = (path: string) => {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = tempPath(path)
  const out: WriteStream = createWriteStream(tmp)
  return {
    write: (text: string): Promise<void> =>
      out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once("drain", () => resolve())),
    commit: () =>
      new Promise<void>((resolve, reject) => {
        out.end(() => {
          try {
            renameSync(tmp, path)
            resolve()
          } catch (e) {
            reject(e)
          }
        })
      }),
    abort: () => {
      out.destroy()
      rmSync(tmp, { force: true })
    }
  }
}

const cell = (v: unknown): unknown => (v !== null && typeof v === "object" ? JSON.stringify(v) : v)

export const jsonlWriter = (path: string): RowWriter => {
  const f = textFile(path)
  return { write: (row) => f.write(`${JSON.stringify(row)}\n`), commit: f.commit, abort: f.abort }
}

/** CSV with a header of `columns`, a BOM (spreadsheets read UTF-8 then) and quoted newlines. */
export const csvWriter = (path: string, columns: ReadonlyArray<string>): RowWriter => {
  const f = textFile(path)
  let header = false
  return {
    write: (row) => {
      const prefix = header ? "" : `\uFEFF${stringify([columns as Array<string>])}`
      header = true
      return f.write(prefix + stringify([columns.map((c) => cell(row[c]))]))
    },
    commit: async () => {
      if (!header) await f.write(`\uFEFF${stringify([columns as Array<string>])}`)
      return f.commit()
    },
    abort: f.abort
  }
}

/**
 * Parquet (snappy) in row groups of `rowGroupSize`; column types come from the first row group
 * (hyparquet-writer's inference), stage outputs are strings.
 */
export const parquetWriter = (path: string, columns: ReadonlyArray<string>, stringColumns: ReadonlySet<string>, rowGroupSize = 2000): RowWriter => {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = tempPath(path)
  let writer: ParquetWriter | undefined
  let buffer: Array<Record<string, unknown>> = []
  const columnData = (rows: ReadonlyArray<Record<string, unknown>>) =>
    columns.map((name) => ({
      name,
      data: rows.map((r) => (stringColumns.has(name) ? (r[name] === undefined || r[name] === null ? null : String(r[name])) : normalise(r[name]))),
      ...(stringColumns.has(name) ? { type: "STRING" as const } : {})
    }))
  const flush = () => {
    if (buffer.length === 0) return
    const data = columnData(buffer)
    if (writer === undefined) writer = new ParquetWriter({ writer: fileWriter(tmp), schema: schemaFromColumnData({ columnData: data }) })
    writer.write({ columnData: data, rowGroupSize: buffer.length })
    buffer = []
  }
  return {
    write: async (row) => {
      buffer.push(row)
      if (buffer.length >= rowGroupSize) flush()
    },
    commit: async () => {
      flush()
      if (writer === undefined) {
        const data = columnData([])
        writer = new ParquetWriter({ writer: fileWriter(tmp), schema: schemaFromColumnData({ columnData: data }) })
      }
      writer.finish()
      renameSync(tmp, path)
    },
    abort: () => rmSync(tmp, { force: true })
  }
}

const normalise = (v: unknown): unknown => (v === undefined ? null : v !== null && typeof v === "object" && !(v instanceof Date) ? JSON.stringify(v) : v)

export const writerFor = (format: Format, path: string, columns: ReadonlyArray<string>, stringColumns: ReadonlySet<string>): RowWriter =>
  format === "csv" ? csvWriter(path, columns) : format === "jsonl" ? jsonlWriter(path) : parquetWriter(path, columns, stringColumns)
