/**
 * Reading an input's metadata as typed failures: a missing, unreadable, truncated or wrong-format
 * file is one SourceError naming the file and the reason (exit 2), never a stack trace.
 */
import { Effect } from "effect"
import { closeSync, openSync, statSync } from "node:fs"
import { fingerprintFile } from "./fingerprint.ts"
import type { InputTypes } from "./input-types.ts"
import { type CountOptions, type Source, SourceError } from "./source.ts"

/** Why a file could not be read, in a few words (a missing file, a directory, no permission). */
export const ioReason = (e: unknown): string => {
  const err = e as NodeJS.ErrnoException
  switch (err.code) {
    case "ENOENT":
      return "no such file"
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "EISDIR":
      return "a directory, not a file"
    default:
      return err.message ?? String(e)
  }
}

/** The file exists, is a regular file and can be opened for reading. */
export const checkReadable = (path: string): Effect.Effect<void, SourceError> =>
  Effect.try({
    try: () => {
      if (statSync(path).isDirectory()) throw Object.assign(new Error("a directory"), { code: "EISDIR" })
      closeSync(openSync(path, "r"))
    },
    catch: (e) => new SourceError({ path, detail: `cannot read the input: ${ioReason(e)}` })
  })

export const fingerprintInput = (path: string, options: CountOptions = {}) =>
  Effect.tryPromise({
    try: () => fingerprintFile(path, options),
    catch: (e) => new SourceError({ path, detail: `cannot read the input: ${ioReason(e)}` })
  })

/** The input's declared columns (a source's `columns`; kept as a function for its callers). */
export const sourceColumns = (source: Source) => source.columns

/** The input's declared types; undefined for a format that declares none. */
export const sourceTypes = (source: Source): Effect.Effect<InputTypes | undefined, SourceError> =>
  source.inputTypes ?? Effect.succeed(undefined)
