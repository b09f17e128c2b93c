/**
 * Where the service is and how to reach it: `SVC_BASE_URL`, `SVC_API_KEY`, `SVC_TIMEOUT_MS`,
 * `SVC_STREAM_IDLE_TIMEOUT_MS`, read from the environment and then from a `.env` file.
 * The key is held as `Redacted` so that it never prints.
 */
import { Config, ConfigProvider, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { parseEnv } from "node:util"

export interface ServiceSettings {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  /** Per attempt, whole request for non-streaming calls; time to the response head for streams. */
  readonly timeout: Duration.Duration
  /** Streams: longest silence between two chunks. */
  readonly streamIdleTimeout: Duration.Duration
}

export class ServiceConfig extends Context.Tag("svc-batch/ServiceConfig")<ServiceConfig, ServiceSettings>() {
  static readonly make = (options: {
    readonly baseUrl: string
    readonly apiKey: string | Redacted.Redacted<string>
    readonly timeout?: Duration.DurationInput
    readonly streamIdleTimeout?: Duration.DurationInput
  }): ServiceSettings => ({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    apiKey: Redacted.isRedacted(options.apiKey) ? options.apiKey : Redacted.make(options.apiKey),
    timeout: Duration.decode(options.timeout ?? "60 seconds"),
    streamIdleTimeout: Duration.decode(options.streamIdleTimeout ?? "60 seconds")
  })

  static readonly layer = (options: Parameters<typeof ServiceConfig.make>[0]) =>
    Layer.succeed(ServiceConfig, ServiceConfig.make(options))
}

/** Environment first, then `.env` in `cwd` (a key set in both: the environment wins). */
export const envProvider = (cwd: string = process.cwd()): ConfigProvider.ConfigProvider => {
  const file = `${cwd}/.env`
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, "utf8")) : {}
  return ConfigProvider.fromEnv().pipe(
    ConfigProvider.orElse(() =>
      ConfigProvider.fromMap(new Map(Object.entries(fromFile).map(([k, v]) => [k, String(v)])))
    )
  )
}

/** The settings the environment names; `baseUrl` is None when SVC_BASE_URL is not set, Some("") when set but empty. */
export const settingsFromEnv = Effect.gen(function* () {
  const baseUrl = yield* Config.option(Config.string("SVC_BASE_URL"))
  const apiKey = yield* Config.option(Config.redacted("SVC_API_KEY"))
  const timeoutMs = yield* Config.integer("SVC_TIMEOUT_MS").pipe(Config.withDefault(60_000))
  const idleMs = yield* Config.integer("SVC_STREAM_IDLE_TIMEOUT_MS").pipe(Config.withDefault(60_000))
  return {
    baseUrl: Option.map(baseUrl, (u) => u.trim()),
    apiKey: Option.filter(apiKey, (k) => Redacted.value(k).trim() !== ""),
    timeout: Duration.millis(timeoutMs),
    streamIdleTimeout: Duration.millis(idleMs)
  }
})

/** ServiceConfig from SVC_BASE_URL / SVC_API_KEY (environment, then `.env`); both required here. */
export const layerFromEnv = Layer.effect(
  ServiceConfig,
  Effect.gen(function* () {
    const s = yield* settingsFromEnv
    const baseUrl = yield* Option.match(
      Option.filter(s.baseUrl, (u) => u !== ""),
      {
        onNone: () => Effect.fail(new Error("SVC_BASE_URL is not set")),
        onSome: Effect.succeed
      }
    )
    const apiKey = yield* Option.match(s.apiKey, {
      onNone: () => Effect.fail(new Error("SVC_API_KEY is not set")),
      onSome: Effect.succeed
    })
    return ServiceConfig.make({ baseUrl, apiKey, timeout: s.timeout, streamIdleTimeout: s.streamIdleTimeout })
  }).pipe(Effect.withConfigProvider(envProvider()))
)
