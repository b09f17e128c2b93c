/** Operating knobs of the emulator (CLI flags and in-process options). */

export interface EmulatorOptions {
  /** 127.0.0.1 unless said otherwise. */
  readonly host?: string
  /** 0 picks a free port. */
  readonly port?: number
  /** The key every request must carry as `Bearer <key>`; when absent, any non-empty bearer token passes. */
  readonly apiKey?: string
  /** Requests per minute per model (translate counts as model "translate"); a number applies to every model. */
  readonly rpm?: number | Readonly<Record<string, number>>
  /** Token-bucket burst in requests; default one second's worth of the rate (at least 1). */
  readonly burst?: number
  /** Fixed latency added to every answer, and uniform jitter ± around it. */
  readonly latencyMs?: number
  readonly jitterMs?: number
  /** Fractions (0–1) of requests answered with 500, with 503, by a connection reset, slowly. */
  readonly error500Rate?: number
  readonly error503Rate?: number
  readonly resetRate?: number
  readonly slowRate?: number
  /** Extra delay of a slow answer. */
  readonly slowMs?: number
  /** Fraction of streams cut before `data: [DONE]`. */
  readonly cutStreamRate?: number
  /** Seed of the fault decisions: the same seed and arrival order give the same faults. */
  readonly faultSeed?: number
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
