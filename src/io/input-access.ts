/**
 * Reading an input's metadata as typed failures: a missing, unreadable, truncated or wrong-format
 * file is one SourceError naming the file and the reason (exit 2), never a stack trace.
 */
import { Effect } from "effect"
import { closeSync, openSync, statSync } from "node:fs"
import { fingerprintFile } from "./fingerprint.ts"
import { type Source, SourceError } from "./source.ts"

const reason = (e: unknown): string => {
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
    catch: (e) => new SourceError({ path, detail: `cannot read the input: ${reason(e)}` })
  })

export const fingerprintInput = (
  path: string,
  options: { readonly quoted?: boolean; readonly skipBlank?: boolean } = {}
) =>
  Effect.tryPromise({
    try: () => fingerprintFile(path, options),
    catch: (e) => new SourceError({ path, detail: `cannot read the input: ${reason(e)}` })
  })

export const sourceColumns = (source: Source) =>
  Effect.tryPromise({
    try: () => source.columns(),
    catch: (e) => new SourceError({ path: source.path, detail: `cannot read the input's columns: ${reason(e)}` })
  })

export const sourceTypes = (source: Source) =>
  Effect.tryPromise({
    try: async () => source.inputTypes?.(),
    catch: (e) => new SourceError({ path: source.path, detail: `cannot read the input's schema: ${reason(e)}` })
  })
