/**
 * A bound on bytes queued (beside a queue's bound on items): a producer is admitted while the
 * bytes queued stay within the limit, or when nothing is queued (an item larger than the limit
 * still passes, alone). No fiber, no allocation while under the limit: this runs per record.
 */
import { Deferred, Effect, Exit, FiberId } from "effect"

export interface ByteGate {
  /** Waits until `bytes` more may be queued, then counts them. */
  readonly admit: (bytes: number) => Effect.Effect<void>
  /** Counts `bytes` and gives true when they may be queued now; false (nothing counted) when not. */
  readonly tryAdmit: (bytes: number) => boolean
  /** Uncounts bytes that left the queue (synchronous: called by the taker). */
  readonly release: (bytes: number) => void
  readonly queued: () => number
}

export const makeByteGate = (maxBytes: number): ByteGate => {
  let queued = 0
  let opened: Deferred.Deferred<void> | undefined
  const tryAdmit = (bytes: number): boolean => {
    if (queued !== 0 && queued + bytes > maxBytes) return false
    queued += bytes
    return true
  }
  const admit = (bytes: number): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (tryAdmit(bytes)) return Effect.void
      opened ??= Deferred.unsafeMake<void>(FiberId.none)
      return Effect.zipRight(Deferred.await(opened), admit(bytes))
    })
  const release = (bytes: number) => {
    queued -= bytes
    if (opened !== undefined && queued < maxBytes) {
      const d = opened
      opened = undefined
      Deferred.unsafeDone(d, Exit.void)
    }
  }
  return { admit, tryAdmit, release, queued: () => queued }
}

/** A rough size of a value in bytes (UTF-16 strings, 8 per number): for bounds, not accounting. */
export const approximateBytes = (value: unknown): number => {
  if (typeof value === "string") return 2 * value.length
  if (value === null || typeof value !== "object") return 8
  if (value instanceof Uint8Array) return value.byteLength
  let n = 16
  if (Array.isArray(value)) for (const v of value) n += approximateBytes(v)
  else for (const k in value) n += 2 * k.length + approximateBytes((value as Record<string, unknown>)[k])
  return n
}
