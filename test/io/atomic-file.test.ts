/**
 * An atomic file whose writes fail (disk full, quota, I/O error) fails with the destination's path
 * and the cause, also a write waiting for the stream to drain, instead of waiting forever.
 * The temporary file is made to fail by being a link to /dev/full, where every write is ENOSPC.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { atomicTextFile, tempPath } from "../../src/io/atomic-file.ts"

const fullDisk = () => {
  const path = join(mkdtempSync(join(tmpdir(), "svc-atomic-")), "out.jsonl")
  writeFileSync(path, "previous\n")
  // The temporary file is this process's: its name is known before the file is opened.
  symlinkSync("/dev/full", tempPath(path))
  return path
}

describe("atomic text file on a full disk", () => {
  it.scopedLive("a write waiting for drain fails with the path and ENOSPC; the previous file stays", () =>
    Effect.gen(function* () {
      const path = fullDisk()
      const file = yield* atomicTextFile(path)
      // More than the stream's buffer at once: the write waits for a drain that never comes.
      const line = `${"x".repeat(1023)}\n`
      const result = yield* Effect.either(
        Effect.forEach(
          Array.from({ length: 256 }, () => line),
          file.write,
          { discard: true }
        )
      )
      expect(Either.isLeft(result)).toBe(true)
      const error = Either.flip(result).pipe(Either.getOrThrow)
      expect(error._tag).toBe("SinkError")
      expect(error.message).toBe(`cannot write ${path}: ENOSPC: no space left on device, write`)
      expect(readFileSync(path, "utf8")).toBe("previous\n")
    })
  )

  it.scopedLive("a commit whose last writes fail fails with the path and ENOSPC; nothing is renamed", () =>
    Effect.gen(function* () {
      const path = fullDisk()
      const file = yield* atomicTextFile(path)
      yield* file.write("small\n")
      const result = yield* Effect.either(file.commit)
      expect(Either.isLeft(result) && result.left.message).toBe(
        `cannot write ${path}: ENOSPC: no space left on device, write`
      )
      expect(readFileSync(path, "utf8")).toBe("previous\n")
      expect(existsSync(path)).toBe(true)
    })
  )
})
