/**
 * A text file written atomically: to a temporary name beside its destination (same file
 * system, so the rename is atomic), renamed into place on commit, removed if its scope closes
 * first. Writes respect the stream's backpressure.
 */
import { Effect, type Scope } from "effect"
import { createWriteStream, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { processAlive } from "./process-alive.ts"
import { SinkError } from "./sink.ts"

export const tempPath = (path: string) => `${path}.tmp-${process.pid}`

/**
 * Temporary files of `path` left by processes that are gone (a SIGKILL during the output pass):
 * removed, so partial outputs do not pile up beside the real one. One of a live process is its own.
 */
export const removeStaleTemps = (path: string): ReadonlyArray<{ readonly path: string; readonly bytes: number }> => {
  const prefix = `${basename(path)}.tmp-`
  let names: ReadonlyArray<string>
  try {
    names = readdirSync(dirname(path))
  } catch {
    return []
  }
  const removed: Array<{ path: string; bytes: number }> = []
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(name.slice(prefix.length))
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processAlive(pid)) continue
    const stale = join(dirname(path), name)
    try {
      const bytes = statSync(stale).size
      rmSync(stale, { force: true })
      removed.push({ path: stale, bytes })
    } catch {
      // Gone meanwhile, or not ours to remove: left as it is.
    }
  }
  return removed
}

export interface AtomicTextFile {
  readonly write: (text: string) => Effect.Effect<void, SinkError>
  readonly commit: Effect.Effect<void, SinkError>
}

/** Creates the folder and the temporary file; removes the temporary file unless committed. */
export const atomicPath = (
  path: string
): Effect.Effect<{ readonly tmp: string; readonly committed: () => void }, SinkError, Scope.Scope> =>
  Effect.zipRight(
    Effect.suspend(() =>
      Effect.forEach(
        removeStaleTemps(path),
        (t) => Effect.logInfo(`removed ${t.path} (${t.bytes} bytes), a partial output left by a process that is gone`),
        { discard: true }
      )
    ),
    Effect.acquireRelease(
      Effect.try({
        try: () => {
          mkdirSync(dirname(path), { recursive: true })
          let done = false
          return { tmp: tempPath(path), committed: () => void (done = true), isDone: () => done }
        },
        catch: (e) => new SinkError({ path, detail: (e as Error).message })
      }),
      (f) => Effect.sync(() => (f.isDone() ? undefined : rmSync(f.tmp, { force: true })))
    )
  )

export const atomicTextFile = (path: string): Effect.Effect<AtomicTextFile, SinkError, Scope.Scope> =>
  Effect.gen(function* () {
    const file = yield* atomicPath(path)
    const out = createWriteStream(file.tmp)
    let failure: Error | undefined
    out.on("error", (e) => void (failure = e))
    yield* Effect.addFinalizer(() => Effect.sync(() => out.destroy()))
    const error = (e: unknown) => new SinkError({ path, detail: (e as Error).message })
    return {
      write: (text) =>
        Effect.suspend(() => {
          if (failure) return Effect.fail(error(failure))
          if (out.write(text)) return Effect.void
          // A write that fails (disk full, quota, I/O error) never drains: its error ends the wait.
          return Effect.async<void, SinkError>((resume) => {
            if (failure) return resume(Effect.fail(error(failure)))
            const off = () => void out.off("drain", drain).off("error", failed)
            const drain = () => (off(), resume(Effect.void))
            const failed = (e: Error) => (off(), resume(Effect.fail(error(e))))
            out.once("drain", drain).once("error", failed)
            return Effect.sync(off)
          })
        }),
      commit: Effect.async<void, SinkError>((resume) => {
        // The callback gets the stream's error, also one met while flushing the last writes.
        out.end((e?: Error | null) => {
          const f = failure ?? e
          if (f) return resume(Effect.fail(error(f)))
          try {
            renameSync(file.tmp, path)
            file.committed()
            resume(Effect.void)
          } catch (e) {
            resume(Effect.fail(error(e)))
          }
        })
      })
    }
  })
