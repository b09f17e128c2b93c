/** Runs `svc-batch <args>` as a real process and collects what it prints. */
import { spawn } from "node:child_process"

const BIN = new URL("../../src/cli/bin.mjs", import.meta.url).pathname

/**
 * `env` is added to this process's environment; a key set to undefined is removed from it.
 * `fileSizeLimit` (bytes, rounded up to 512): no file the process writes may grow past it (the
 * shell's `ulimit -f`, POSIX blocks of 512 bytes); a write beyond it fails with EFBIG, as a full
 * disk fails one with ENOSPC (Node ignores SIGXFSZ).
 */
export const spawnCli = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined> = {},
  options: { readonly fileSizeLimit?: number } = {}
) => {
  const merged: Record<string, string | undefined> = { ...process.env, ...env }
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k]
  const command: ReadonlyArray<string> =
    options.fileSizeLimit === undefined
      ? [process.execPath, BIN, ...args]
      : [
          "/bin/sh",
          "-c",
          `ulimit -f ${Math.ceil(options.fileSizeLimit / 512)} && exec "$0" "$@"`,
          process.execPath,
          BIN,
          ...args
        ]
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "pipe"], env: merged })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  /** The exit code, or -1 when a signal killed the process. */
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? (signal ? -1 : null)))
  )
  /** Resolves with the first match of `pattern` in stdout. */
  const waitFor = (pattern: RegExp, ms = 20_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const deadline = setTimeout(
        () => reject(new Error(`timed out waiting for ${pattern}; stdout=${stdout} stderr=${stderr}`)),
        ms
      )
      const poll = setInterval(() => {
        const m = stdout.match(pattern)
        if (m) {
          clearInterval(poll)
          clearTimeout(deadline)
          resolve(m)
        }
      }, 20)
    })
  return { child, exited, waitFor, out: () => stdout, err: () => stderr }
}
