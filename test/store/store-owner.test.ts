/** The store's owner at open (the safety net behind the job layer's check) and its lock. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { exitCodeOfError } from "../../src/cli/exit-codes.ts"
import { openStoreWriter, storeSize } from "../../src/store/sqlite-vec.ts"
import { lockStore } from "../../src/store/store-lock.ts"
import { checkStoreOwner, StoreOwned } from "../../src/store/store-owner.ts"
import { StoreSettings } from "../../src/store/vector-store.ts"
import { tempDir } from "../engine/run-helpers.ts"

const settings = (path: string, cleanup: "none" | "full" = "none") =>
  Schema.decodeUnknownSync(StoreSettings)({ path, cleanup })
const row = { vector: [1, 0, 0, 0], text: null, metadata: {} }

const write = (path: string, job: string, keys: ReadonlyArray<string>, cleanup: "none" | "full" = "none") => {
  const w = openStoreWriter(settings(path, cleanup), 4, { job })
  try {
    for (const k of keys) w.put(k, k, () => [row])
    w.commit()
    return w.claimed
  } finally {
    w.close()
  }
}

describe("store owner", () => {
  it("the writer of another job is refused when it opens, before it writes or deletes anything", () => {
    const path = join(tempDir(), "kb.sqlite")
    expect(write(path, "a", ["1", "2", "3"])).toBe("new")
    expect(write(path, "a", ["1", "2", "3"])).toBe("own")
    expect(() => write(path, "b", ["9"], "full")).toThrow(StoreOwned)
    expect(() => write(path, "b", ["9"], "full")).toThrow("table docs belongs to job a; job b may not write it")
    expect(storeSize(settings(path))).toBe(3)
  })

  it.effect("the check before any request: a new store, the owner itself pass; another job fails", () =>
    Effect.gen(function* () {
      const path = join(tempDir(), "kb.sqlite")
      yield* checkStoreOwner("b", settings(path))
      write(path, "a", ["1"])
      yield* checkStoreOwner("a", settings(path))
      const refused = yield* Effect.flip(checkStoreOwner("b", settings(path)))
      expect(refused).toMatchObject({ _tag: "StoreOwned", owner: "a", job: "b", table: "docs" })
      expect(exitCodeOfError(refused)).toBe(2)
    })
  )

  it.effect(
    "a writer that finds the store's lock held past its wait gives up with StoreBusy (exit 7), naming the holder",
    () =>
      Effect.gen(function* () {
        const path = join(tempDir(), "kb.sqlite")
        // Held by another live process of this host: this test's parent (a lock naming our own pid is not held).
        writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), started: "then" }))
        const busy = yield* Effect.flip(Effect.scoped(lockStore(path, 0)))
        expect(busy._tag).toBe("StoreBusy")
        expect(exitCodeOfError(busy)).toBe(7)
        expect(busy.message).toBe(
          `vector store ${path} is still being written by process ${process.ppid}, started then after 0 s of waiting (lock ${path}.lock); run the same command again once it is done (the answers are reused)`
        )
      })
  )
})
