/**
 * The output pass joins the input, read again, with the outcomes stored by row number. That join
 * is only right while the input is the file the run processed: a file replaced or edited during
 * the run would put verdicts beside the wrong rows. The guard checks the input's fingerprint (its
 * SHA-256, as the run recorded it) before the output pass and again before anything is committed,
 * and the file's identity (inode, size, modification time: one `stat`) between store batches.
 */
import { Data, Effect } from "effect"
import { statSync } from "node:fs"
import { fingerprintFile } from "../../io/fingerprint.ts"
import { ExitCode } from "../../exit-code.ts"

export class InputChanged extends Data.TaggedError("InputChanged")<{
  readonly path: string
  readonly detail: string
  /** The run read no stored answers (`cache: off`): the next run asks them again, so no reuse is promised. */
  readonly cacheOff?: boolean
}> {
  /** Exit 8 when it ends a command: no output from a file that changed; the next run reuses the answers. */
  get exitCode() {
    return ExitCode.inputChanged
  }
  override get message() {
    const again =
      this.cacheOff === true
        ? "Run the same command again (with the cache off, every answer is asked again; without --cache off a new run reuses those already paid for)"
        : "Run the same command again: a new run over the file as it is now reuses every answer already paid for"
    return `${this.path} changed during the run (${this.detail}); no output was written. ${again}`
  }
}

export interface InputGuard {
  /** Fails unless the file's bytes are still those the run recorded (a full read). */
  readonly verify: Effect.Effect<void, InputChanged>
  /** Throws InputChanged when the file is no longer the one seen by the last `verify` (one stat). */
  readonly quickCheck: () => void
}

const identity = (path: string): string | undefined => {
  try {
    const s = statSync(path)
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return undefined
  }
}

export const makeInputGuard = (
  path: string,
  fingerprint: string,
  options: { readonly cacheOff?: boolean } = {}
): InputGuard => {
  let seen = identity(path)
  const cacheOff = options.cacheOff === true ? { cacheOff: true } : {}
  return {
    verify: Effect.gen(function* () {
      const before = identity(path)
      const now = yield* Effect.tryPromise({
        try: () => fingerprintFile(path),
        catch: (e) =>
          new InputChanged({ path, detail: `it can no longer be read: ${(e as Error).message}`, ...cacheOff })
      })
      if (now.fingerprint !== fingerprint) {
        return yield* new InputChanged({
          path,
          detail: `its content is not what this run read: sha256 ${now.fingerprint.slice(0, 12)}… now, ${fingerprint.slice(0, 12)}… then`,
          ...cacheOff
        })
      }
      seen = before
    }),
    quickCheck: () => {
      const now = identity(path)
      if (now !== seen)
        throw new InputChanged({
          path,
          detail: now === undefined ? "it is gone" : "it was replaced or modified while the output was written",
          ...cacheOff
        })
    }
  }
}
