/** The emulator as an Effect resource: started on acquire, stopped when its scope closes. */
import { Context, Effect, Layer } from "effect"
import type { EmulatorOptions } from "./options.ts"
import { type RunningEmulator, startEmulator } from "./server.ts"

export class Emulator extends Context.Tag("svc-batch/Emulator")<Emulator, RunningEmulator>() {
  static readonly layer = (options: EmulatorOptions = {}) => Layer.scoped(Emulator, Emulator.make(options))

  static readonly make = (options: EmulatorOptions = {}) =>
    Effect.acquireRelease(
      Effect.promise(() => startEmulator(options)),
      (running) => Effect.promise(() => running.close())
    )
}
