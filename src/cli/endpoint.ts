/**
 * Where a command's requests go: SVC_BASE_URL (with SVC_API_KEY) when set, else the embedded
 * emulator, started in-process on loopback with a one-off key. Which one is in use is always
 * visible (`emulated`), so no output can be mistaken for the real service's.
 */
import { Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { Emulator } from "../emulator/emulator.ts"
import type { EmulatorOptions } from "../emulator/options.ts"
import { TextService } from "../service/client.ts"
import { envProvider, ServiceConfig, settingsFromEnv } from "../service/config.ts"
import { httpClientLayer } from "../service/http.ts"

export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly detail: string }> {
  override get message() {
    return this.detail
  }
}

export interface EndpointInfo {
  readonly baseUrl: string
  readonly emulated: boolean
}

export class ServiceEndpoint extends Context.Tag("svc-batch/ServiceEndpoint")<ServiceEndpoint, EndpointInfo>() {}

/** ServiceConfig + ServiceEndpoint, from the environment or the embedded emulator. */
const configLayer = (emulatorOptions: EmulatorOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const env = yield* settingsFromEnv.pipe(
        Effect.withConfigProvider(envProvider()),
        Effect.mapError((e) => new ConfigError({ detail: `invalid configuration: ${e.message}` }))
      )
      if (Option.isSome(env.baseUrl)) {
        const apiKey = yield* Option.match(env.apiKey, {
          onNone: () => Effect.fail(new ConfigError({ detail: "SVC_BASE_URL is set but SVC_API_KEY is not (environment or .env)" })),
          onSome: Effect.succeed
        })
        const settings = ServiceConfig.make({ baseUrl: env.baseUrl.value, apiKey, timeout: env.timeout, streamIdleTimeout: env.streamIdleTimeout })
        return Layer.merge(
          Layer.succeed(ServiceConfig, settings),
          Layer.succeed(ServiceEndpoint, { baseUrl: settings.baseUrl, emulated: false })
        )
      }
      const apiKey = Redacted.make(randomBytes(16).toString("hex"))
      const emu = yield* Emulator.make({ ...emulatorOptions, apiKey: Redacted.value(apiKey) })
      return Layer.merge(
        Layer.succeed(ServiceConfig, ServiceConfig.make({ baseUrl: emu.url, apiKey, timeout: env.timeout, streamIdleTimeout: env.streamIdleTimeout })),
        Layer.succeed(ServiceEndpoint, { baseUrl: emu.url, emulated: true })
      )
    })
  )

/** TextService and ServiceEndpoint for a command. */
export const serviceLayer = (emulatorOptions: EmulatorOptions = {}) =>
  TextService.Default.pipe(Layer.provide(httpClientLayer), Layer.provideMerge(configLayer(emulatorOptions)))

export const describeEndpoint = (e: EndpointInfo): string =>
  e.emulated
    ? `EMULATOR (embedded, ${e.baseUrl}): deterministic stand-in models, not the real service; set SVC_BASE_URL to use the service`
    : `service at ${e.baseUrl}`
