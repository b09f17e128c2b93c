/** Test helpers: emulators on loopback port 0, raw HTTP calls, a client wired to an emulator. */
import { Effect, Layer } from "effect"
import { Emulator } from "../src/emulator/emulator.ts"
import type { EmulatorOptions, RequestLogEntry } from "../src/emulator/options.ts"
import { startEmulator, type RunningEmulator } from "../src/emulator/server.ts"
import { TextService } from "../src/service/client.ts"

export const KEY = "test-key-7f3a9c"

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // any: tests read arbitrary JSON bodies field by field; a failed lookup fails the assertion.
  readonly json: any
}

/** POST `body` (an object, or a raw string) to `path` with the test key unless `auth` says otherwise. */
export const post = async (
  emu: RunningEmulator,
  path: string,
  body: unknown,
  auth: string | null = `Bearer ${KEY}`
): Promise<RawResponse> => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (auth !== null) headers.authorization = auth
  const res = await fetch(emu.url + path, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  const text = await res.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, json }
}

/** Starts an emulator for a test file; returns a getter and registers nothing global. */
export const emulatorFor = async (options: EmulatorOptions = {}) => startEmulator({ apiKey: KEY, ...options })

/** A TextService wired to a fresh emulator (scoped: both stop with the test). */
export const clientLayer = (
  options: EmulatorOptions = {},
  client: { timeout?: string; streamIdleTimeout?: string; apiKey?: string; path?: string } = {}
) =>
  Layer.unwrapScoped(
    Emulator.make({ apiKey: KEY, ...options }).pipe(
      Effect.map((emu) =>
        TextService.layer({
          baseUrl: emu.url + (client.path ?? ""),
          apiKey: client.apiKey ?? KEY,
          ...(client.timeout ? { timeout: client.timeout as "1 second" } : {}),
          ...(client.streamIdleTimeout ? { streamIdleTimeout: client.streamIdleTimeout as "1 second" } : {})
        })
      )
    )
  )

/** A request log for emulator options: `entries` fills as requests are answered. */
/**
 * The API calls an emulator answered (POST, §4). A command against a URL first probes it with a
 * GET for an emulator's identity (src/cli/emulator-probe.ts): not an API call, not counted.
 */
export const requestLog = () => {
  const entries: Array<RequestLogEntry> = []
  return { entries, onRequest: (e: RequestLogEntry) => void (e.method === "POST" && entries.push(e)) }
}

export const chatBody = (content: string, extra: Record<string, unknown> = {}) => ({
  model: "svc3-mini",
  messages: [{ role: "user", content }],
  ...extra
})

/** Parses an SSE body into its data payloads (including "[DONE]"). */
export const sseData = (text: string): Array<string> =>
  text
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice("data: ".length))

export const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return dot / Math.sqrt(na * nb)
}
