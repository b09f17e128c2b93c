/** Options of an emulator: its knobs (knobs.ts, declared once) and where it listens. */
import type { EmulatorKnobs } from "./knobs.ts"

export interface EmulatorOptions extends EmulatorKnobs {
  /** 127.0.0.1 unless said otherwise. */
  readonly host?: string
  /** 0 picks a free port. */
  readonly port?: number
  /** The key every request must carry as `Bearer <key>`; when absent, any non-empty bearer token passes. */
  readonly apiKey?: string
  /**
   * Answer every request with the `x-svc-emulator` header (identity.ts), so that clients key its
   * answers as the emulator's: set by `svc-batch emulator`, not by tests standing in for the service.
   */
  readonly identify?: boolean
  /** How much of a refused body is read before answering (server.ts DefaultDrain); for tests. */
  readonly drain?: Partial<DrainLimits>
  /** Called once per request after it is answered (for tests and drills). Never given the key. */
  readonly onRequest?: (entry: RequestLogEntry) => void
}

/**
 * How much of a refused body (401, 404, 413) the server reads and discards before it answers, and
 * for how long; past either cap it answers at once, half-closes and keeps reading for `lingerMs`.
 */
export interface DrainLimits {
  readonly bytes: number
  readonly ms: number
  readonly lingerMs: number
}

export interface RequestLogEntry {
  /** POST for the API's calls (§4); a GET is e.g. a client's probe for the emulator's identity. */
  readonly method: string
  readonly path: string
  readonly model: string | undefined
  readonly status: number
  /** FNV-1a of the request body: the same body twice is the same request paid twice. */
  readonly bodyHash: string
  readonly fault: FaultKind | undefined
}

export type FaultKind = "500" | "503" | "reset" | "slow" | "cut"

export const rpmFor = (rpm: EmulatorOptions["rpm"], model: string): number | undefined =>
  rpm === undefined ? undefined : typeof rpm === "number" ? rpm : (rpm[model] ?? rpm["*"])
