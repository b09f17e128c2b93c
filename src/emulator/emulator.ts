/** The emulator as an Effect resource: started on acquire, stopped when its scope closes. */
import { Context, Data, Effect, Layer } from "effect"
import type { EmulatorOptions } from "./options.ts"
import { type RunningEmulator, startEmulator } from "./server.ts"
import { ExitCode } from "../exit-code.ts"

/** The server could not listen (address in use, not permitted, not an address of this host). */
export class EmulatorStartError extends Data.TaggedError("EmulatorStartError")<{
  readonly address: string
  readonly code: string | undefined
  readonly detail: string
}> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    switch (this.code) {
      case "EADDRINUSE":
        return `cannot listen on ${this.address}: the port is in use (stop what holds it, or pick another --port; 0 picks a free one)`
      case "EACCES":
        return `cannot listen on ${this.address}: not permitted (ports below 1024 need privileges; pick another --port)`
      case "EADDRNOTAVAIL":
        return `cannot listen on ${this.address}: no such address on this host (--host)`
      default:
        return `cannot listen on ${this.address}: ${this.detail}`
    }
  }
}

export class Emulator extends Context.Tag("svc-batch/Emulator")<Emulator, RunningEmulator>() {
  static readonly layer = (options: EmulatorOptions = {}) => Layer.scoped(Emulator, Emulator.make(options))

  static readonly make = (options: EmulatorOptions = {}) =>
    Effect.acquireRelease(
      Effect.tryPromise({
        try: () => startEmulator(options),
        catch: (e) =>
          new EmulatorStartError({
            address: `${options.host ?? "127.0.0.1"}:${options.port ?? 0}`,
            code: (e as NodeJS.ErrnoException).code,
            detail: (e as Error).message
          })
      }),
      (running) => Effect.promise(() => running.close())
    )
}
