/**
 * Where a command's requests go: SVC_BASE_URL (with SVC_API_KEY) when set, else the embedded
 * emulator, started in-process on loopback with a one-off key. Which one is in use is always
 * visible (`emulated`), so no output can be mistaken for the real service's.
 */
import { Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { answerFingerprint, emulatorOrigin } from "../emulator/identity.ts"
import type { EmulatorOptions } from "../emulator/options.ts"
import { TextService } from "../service/client.ts"
import { envProvider, ServiceConfig, settingsFromEnv } from "../service/config.ts"
import { httpClientLayer } from "../service/http.ts"
import { probeEmulator } from "./emulator-probe.ts"
import { ExitCode } from "../exit-code.ts"

export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly detail: string }> {
  /** Exit 2 when it ends a command: fix the job, option, input or environment; nothing was sent. */
  get exitCode() {
    return ExitCode.invalid
  }
  override get message() {
    return this.detail
  }
}

export interface EndpointInfo {
  readonly baseUrl: string
  /** The embedded emulator. */
  readonly emulated: boolean
  /** An emulator's answer fingerprint (identity.ts): the embedded one's, or a standalone one's at SVC_BASE_URL. */
  readonly emulator?: string | undefined
}

export class ServiceEndpoint extends Context.Tag("svc-batch/ServiceEndpoint")<ServiceEndpoint, EndpointInfo>() {}

export interface EndpointPolicy {
  /** The job must run on the real service (`service: required`): never on the emulator. */
  readonly serviceRequired?: boolean
}

/** Why the environment cannot be used as it is, or undefined. */
const misconfiguration = (
  baseUrl: Option.Option<string>,
  hasKey: boolean,
  policy: EndpointPolicy
): string | undefined => {
  if (Option.isSome(baseUrl)) {
    const url = baseUrl.value
    if (url === "")
      return "SVC_BASE_URL is set but empty: set it to the service's URL, or unset it to use the embedded emulator"
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      return `SVC_BASE_URL is not an http(s) URL: ${JSON.stringify(url)} (e.g. https://host)`
    }
    if (!hasKey) return "SVC_BASE_URL is set but SVC_API_KEY is not (environment or .env)"
    return undefined
  }
  // A key without a URL is a lost variable, not a wish for the emulator: stand-in answers must
  // never reach a production output unnoticed.
  if (hasKey)
    return "SVC_API_KEY is set but SVC_BASE_URL is not: set SVC_BASE_URL to the service's URL (or unset SVC_API_KEY to use the embedded emulator)"
  if (policy.serviceRequired)
    return "this job requires the real service (service: required) but SVC_BASE_URL is not set"
  return undefined
}

/** ServiceConfig + ServiceEndpoint, from the environment or the embedded emulator. */
const configLayer = (emulatorOptions: EmulatorOptions, policy: EndpointPolicy) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const env = yield* settingsFromEnv.pipe(
        Effect.withConfigProvider(envProvider()),
        Effect.mapError((e) => new ConfigError({ detail: `invalid configuration: ${e.message}` }))
      )
      const problem = misconfiguration(env.baseUrl, Option.isSome(env.apiKey), policy)
      if (problem !== undefined) return yield* new ConfigError({ detail: problem })
      if (Option.isSome(env.baseUrl) && Option.isSome(env.apiKey)) {
        const settings = ServiceConfig.make({
          baseUrl: env.baseUrl.value,
          apiKey: env.apiKey.value,
          timeout: env.timeout,
          streamIdleTimeout: env.streamIdleTimeout
        })
        // A standalone emulator at that URL says so: its answers are then keyed as the emulator's.
        const emulator = yield* probeEmulator(settings.baseUrl, settings.timeout)
        return Layer.merge(
          Layer.succeed(ServiceConfig, settings),
          Layer.succeed(ServiceEndpoint, { baseUrl: settings.baseUrl, emulated: false, emulator })
        )
      }
      const apiKey = Redacted.make(randomBytes(16).toString("hex"))
      // Loaded only when no service is configured: the emulator and its models are not small.
      const { Emulator } = yield* Effect.promise(() => import("../emulator/emulator.ts"))
      const emu = yield* Emulator.make({ ...emulatorOptions, apiKey: Redacted.value(apiKey) })
      return Layer.merge(
        Layer.succeed(
          ServiceConfig,
          ServiceConfig.make({
            baseUrl: emu.url,
            apiKey,
            timeout: env.timeout,
            streamIdleTimeout: env.streamIdleTimeout
          })
        ),
        Layer.succeed(ServiceEndpoint, {
          baseUrl: emu.url,
          emulated: true,
          emulator: answerFingerprint(emulatorOptions)
        })
      )
    })
  )

/** TextService and ServiceEndpoint for a command. */
export const serviceLayer = (emulatorOptions: EmulatorOptions = {}, policy: EndpointPolicy = {}) =>
  TextService.Default.pipe(Layer.provide(httpClientLayer), Layer.provideMerge(configLayer(emulatorOptions, policy)))

/**
 * Where a run's answers come from, as the ledger records it (never a key): an emulator, embedded
 * or standalone, by the knobs that change its answers ("emulator" with the defaults), not by its
 * port; else the base URL.
 */
export const originOf = (e: EndpointInfo): string => (e.emulator !== undefined ? emulatorOrigin(e.emulator) : e.baseUrl)

export const describeEndpoint = (e: EndpointInfo): string =>
  e.emulated
    ? `EMULATOR (embedded, ${e.baseUrl}): deterministic stand-in models, not the real service; set SVC_BASE_URL to use the service`
    : e.emulator !== undefined
      ? `EMULATOR (standalone at ${e.baseUrl}, ${e.emulator}): deterministic stand-in models, not the real service; answers stored as the emulator's`
      : `service at ${e.baseUrl}`
