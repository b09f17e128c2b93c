/**
 * A vector column chunk (a 3-level LIST of FLOAT: OPTIONAL list, REPEATED `list`, OPTIONAL
 * `element`) written directly: Float32 values copied into each page, levels as a few RLE runs.
 * hyparquet-writer's generic path walks every float of every row (three array pushes each, then
 * its pages' levels and values one by one): 20× slower, and most of a backfill's output pass.
 * The pages are what it writes (data page v2, PLAIN, one row never across pages), so readers see
 * the same column; only the bytes of the levels may differ (runs where it bit-packs).
 */
import type { ColumnChunk, CompressionCodec } from "hyparquet"
import type { Writer } from "hyparquet-writer/src/types.js"
import { writePageHeader } from "hyparquet-writer/src/datapage.js"
import { ByteWriter } from "hyparquet-writer/src/bytewriter.js"
import { zeroRunSnappy } from "./zero-run-snappy.ts"
import { endianness } from "node:os"

/** A vector as a row holds it: numbers, or the Float32 values themselves. */
export type VectorValue = ReadonlyArray<number> | Float32Array

/** Pages of about this many value bytes (hyparquet-writer's default page size). */
const PAGE_BYTES = 1 << 20
/**
 * Vectors compress only where they hold zeros (a sparse model's, the emulator's shrink ~12×; a
 * dense model's not at all): zeroRunSnappy takes those, and a chunk whose first page it cannot
 * shrink by this much is written uncompressed.
 */
const WORTH_COMPRESSING = 0.85

const littleEndian = endianness() === "LE"

/** RLE runs of one level stream (bit width ≤ 8), merged as they come. */
class Runs {
  readonly out = new ByteWriter(64)
  private value = -1
  private count = 0
  add(value: number, count: number) {
    if (count === 0) return
    if (value === this.value) {
      this.count += count
      return
    }
    this.end()
    this.value = value
    this.count = count
  }
  end() {
    if (this.count > 0) {
      // RLE run header: count << 1 (low bit 0), as a varint; then the value in one byte.
      let header = this.count * 2
      while (header >= 0x80) {
        this.out.appendUint8((header & 0x7f) | 0x80)
        header = Math.floor(header / 0x80)
      }
      this.out.appendUint8(header)
      this.out.appendUint8(this.value)
    }
    this.count = 0
    this.value = -1
  }
}

/** The Float32 bytes of a page's present vectors, little-endian. */
const pageValues = (rows: ReadonlyArray<VectorValue | null>, start: number, end: number) => {
  let present = 0
  for (let r = start; r < end; r++) if (rows[r] != null) present += rows[r]!.length
  const bytes = new Uint8Array(present * 4)
  const floats = littleEndian ? new Float32Array(bytes.buffer) : undefined
  const view = littleEndian ? undefined : new DataView(bytes.buffer)
  let at = 0
  for (let r = start; r < end; r++) {
    const v = rows[r]
    if (v == null) continue
    if (floats !== undefined) {
      if (v instanceof Float32Array) bytes.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), at * 4)
      else floats.set(v, at)
    } else for (let i = 0; i < v.length; i++) view!.setFloat32((at + i) * 4, v[i]!, true)
    at += v.length
  }
  return bytes
}

export interface VectorChunk {
  readonly chunk: ColumnChunk
  /** Where each page starts, for the offset index (hyparquet-writer writes one when a chunk has several pages). */
  readonly offsetIndex:
    | {
        readonly page_locations: Array<{ offset: bigint; compressed_page_size: number; first_row_index: bigint }>
      }
    | undefined
}

/**
 * Writes `rows` (null: no vector) as the column chunk of `name` at the writer's offset. The levels:
 * repetition 0 at each row's first value, 1 after; definition 3 for a value, 1 for an empty list, 0
 * for null — the levels hyparquet-writer's Dremel encoding gives this schema.
 */
export const writeVectorChunk = (
  writer: Writer,
  name: string,
  dim: number,
  rows: ReadonlyArray<VectorValue | null>,
  codec: CompressionCodec
): VectorChunk => {
  const offsetStart = writer.offset
  const rowsPerPage = Math.max(1, Math.floor(PAGE_BYTES / Math.max(4, dim * 4)))
  let uncompressed = 0
  let levelCount = 0
  let chunkCodec: CompressionCodec = "UNCOMPRESSED"
  const locations: Array<{ offset: bigint; compressed_page_size: number; first_row_index: bigint }> = []
  for (let start = 0; start < rows.length; start += rowsPerPage) {
    const end = Math.min(rows.length, start + rowsPerPage)
    const rep = new Runs()
    const def = new Runs()
    let nulls = 0
    let values = 0
    for (let r = start; r < end; r++) {
      const v = rows[r]
      if (v == null || v.length === 0) {
        rep.add(0, 1)
        def.add(v == null ? 0 : 1, 1)
        nulls++
        values++
        continue
      }
      rep.add(0, 1)
      rep.add(1, v.length - 1)
      def.add(3, v.length)
      values += v.length
    }
    rep.end()
    def.end()
    const bytes = pageValues(rows, start, end)
    // The chunk's codec is chosen on its first page (vectors of one column are alike).
    const compressed = start === 0 ? (codec === "SNAPPY" ? zeroRunSnappy(bytes) : undefined) : undefined
    if (compressed !== undefined && compressed.length <= bytes.length * WORTH_COMPRESSING) chunkCodec = "SNAPPY"
    const stored = chunkCodec === "SNAPPY" ? (compressed ?? zeroRunSnappy(bytes)) : bytes
    const repBytes = rep.out.getBytes()
    const defBytes = def.out.getBytes()
    const levels = repBytes.length + defBytes.length
    const pageOffset = writer.offset
    writePageHeader(writer, {
      type: "DATA_PAGE_V2",
      uncompressed_page_size: levels + bytes.length,
      compressed_page_size: levels + stored.length,
      data_page_header_v2: {
        num_values: values,
        num_nulls: nulls,
        num_rows: end - start,
        encoding: "PLAIN",
        definition_levels_byte_length: defBytes.length,
        repetition_levels_byte_length: repBytes.length,
        is_compressed: chunkCodec !== "UNCOMPRESSED"
      }
    })
    uncompressed += writer.offset - pageOffset + levels + bytes.length
    writer.appendBytes(repBytes)
    writer.appendBytes(defBytes)
    writer.appendBytes(stored)
    levelCount += values
    locations.push({
      offset: BigInt(pageOffset),
      compressed_page_size: writer.offset - pageOffset,
      first_row_index: BigInt(start)
    })
  }
  return {
    chunk: {
      meta_data: {
        type: "FLOAT",
        encodings: ["PLAIN"],
        path_in_schema: [name, "list", "element"],
        codec: chunkCodec,
        num_values: BigInt(levelCount),
        total_compressed_size: BigInt(writer.offset - offsetStart),
        total_uncompressed_size: BigInt(uncompressed),
        data_page_offset: BigInt(offsetStart)
      },
      file_offset: BigInt(offsetStart)
    },
    offsetIndex: locations.length > 1 ? { page_locations: locations } : undefined
  }
}
