/** Options of an emulator: its knobs (knobs.ts, declared once) and where it listens. */
import type { EmulatorKnobs } from "./knobs.ts"

export interface EmulatorOptions extends EmulatorKnobs {
  /** 127.0.0.1 unless said otherwise. */
  readonly host?: string
  /** 0 picks a free port. */
  readonly port?: number
  /** The key every request must carry as `Bearer <key>`; when absent, any non-empty bearer token passes. */
  readonly apiKey?: string
  /** Called once per request after it is answered (for tests and drills). Never given the key. */
  readonly onRequest?: (entry: RequestLogEntry) => void
}

export interface RequestLogEntry {
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
