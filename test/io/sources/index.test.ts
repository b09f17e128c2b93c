/** The source registry (sources/index.ts): formats by name and extension, the run's row estimate per format. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { parquetWriteBuffer } from "hyparquet-writer"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { fingerprintFile } from "../../../src/io/fingerprint.ts"
import { formatOf, inputFormats, measureInput, openSource, sources } from "../../../src/io/sources/index.ts"
import { tempDir } from "../../engine/run-helpers.ts"

const dir = tempDir()
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

describe("source registry", () => {
  it("knows each format by its name and its extensions", () => {
    expect(inputFormats).toEqual(["csv", "jsonl", "parquet"])
    expect(formatOf("a/b.CSV")).toBe("csv")
    expect(formatOf("b.ndjson")).toBe("jsonl")
    expect(formatOf("b.jsonl")).toBe("jsonl")
    expect(formatOf("b.parquet")).toBe("parquet")
    expect(formatOf("b.txt")).toBeUndefined()
    expect(formatOf("b.txt", "csv")).toBe("csv")
    for (const f of inputFormats) {
      expect(sources[f].name).toBe(f)
      expect(openSource("x", f).format).toBe(f)
    }
  })

  it.effect("CSV: rows outside quotes less the header, an estimate", () =>
    Effect.gen(function* () {
      const path = file("a.csv", 'id,text\n1,"two\nlines"\n2,b\n')
      const { fingerprint, estimate } = yield* measureInput(path, "csv")
      expect(estimate).toEqual({ rows: 2, exact: false })
      expect(fingerprint).toBe((yield* Effect.promise(() => fingerprintFile(path))).fingerprint)
    })
  )

  it.effect("JSON Lines: lines with something on them, exact", () =>
    Effect.gen(function* () {
      const path = file("a.jsonl", '{"a":1}\n\n  \n{bad\n{"a":2}')
      expect((yield* measureInput(path, "jsonl")).estimate).toEqual({ rows: 3, exact: true })
    })
  )

  it.effect("Parquet: the footer's row count, exact", () =>
    Effect.gen(function* () {
      const buffer = parquetWriteBuffer({
        columnData: [{ name: "id", data: Int32Array.from({ length: 25 }, (_, i) => i), type: "INT32" }],
        rowGroupSize: 10
      })
      const path = file("a.parquet", Buffer.from(buffer))
      expect((yield* measureInput(path, "parquet")).estimate).toEqual({ rows: 25, exact: true })
    })
  )

  it.effect("an input that is not there is a SourceError naming it", () =>
    Effect.gen(function* () {
      const missing = join(dir, "missing.parquet")
      const error = yield* Effect.flip(measureInput(missing, "parquet"))
      expect(error._tag).toBe("SourceError")
      expect(error.message).toBe(`${missing}: cannot read the input: no such file`)
      const columns = yield* Effect.flip(openSource(join(dir, "missing.csv"), "csv").columns)
      expect(columns.message).toContain("no such file")
    })
  )
})
