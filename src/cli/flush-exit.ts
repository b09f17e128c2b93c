/**
 * The end of the process. Piped stdout/stderr are written asynchronously: process.exit() while they
 * still hold data cuts the output mid-line (a pipe takes 64 KiB at a time). So the command's end
 * waits for both to flush, then exits — still explicitly, so that a handle a library left open
 * (e.g. a keep-alive socket) cannot keep the process alive.
 *
 * A reader that closes the pipe early (`| head -1`): EPIPE. The process ends at once, silently, with
 * 141 (128 + SIGPIPE), as a tool killed by SIGPIPE does, never with a stack trace or a hang.
 */
import { ExitCode } from "../exit-code.ts"

/** The exit code when stdout's or stderr's reader has gone (128 + SIGPIPE, as a shell reports a tool SIGPIPE killed). */
export const READER_GONE = ExitCode.readerGone

const streams = () => [process.stdout, process.stderr]

/** Installs the EPIPE handling on stdout and stderr. */
export const exitWhenReaderGone = () => {
  for (const stream of streams()) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(READER_GONE)
      throw error // anything else is a real fault: surfaced as before
    })
  }
}

/** Resolves when everything written to `stream` so far has reached the OS (at once when nothing is pending). */
const flushed = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => {
    if (stream.writableLength === 0 || stream.destroyed) return resolve()
    // Writes complete in order: the empty one's callback runs once every earlier chunk is out.
    stream.write("", () => resolve())
  })

/** Exits with `code` once stdout and stderr have flushed. */
export const exitWhenFlushed = (code: number) => {
  void Promise.all(streams().map(flushed)).then(() => process.exit(code))
}
