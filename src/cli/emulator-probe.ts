/**
 * Asks a SVC_BASE_URL whether it is a standalone emulator (identity.ts): one GET without the key,
 * which the service answers 404 (§4: every endpoint is POST) and an emulator answers with its
 * `x-svc-emulator` header. No answer, or no header: not an emulator — the URL is the origin.
 */
import { Duration, Effect } from "effect"
import { EmulatorHeader, fingerprintOf } from "../emulator/identity.ts"

/** At most this long: an unreachable URL is the run's to report, not the probe's. */
const ProbeTimeout = Duration.seconds(5)

/** The emulator's answer fingerprint, or undefined when `baseUrl` is not a standalone emulator. */
export const probeEmulator = (baseUrl: string, timeout: Duration.Duration): Effect.Effect<string | undefined> =>
  Effect.tryPromise(async () => {
    const ms = Duration.toMillis(Duration.min(timeout, ProbeTimeout))
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: "GET",
      redirect: "manual",
      signal: AbortSignal.timeout(ms)
    })
    await response.body?.cancel()
    return fingerprintOf(response.headers.get(EmulatorHeader))
  }).pipe(Effect.orElseSucceed(() => undefined))
