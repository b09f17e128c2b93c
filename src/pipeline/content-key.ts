/** Content key of a request: the same endpoint, model, parameters and text are the same question. */
import { createHash, hash } from "node:crypto"
import type { Endpoint } from "../service/errors.ts"

/** What a content key is made of (a stage request has these fields; this file does not import the stage, which imports it). */
export interface KeyedQuestion {
  readonly endpoint: Endpoint
  readonly model: string
  readonly params: unknown
  readonly text: string
}

/** JSON with object keys sorted, so parameter order never changes a key. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        )
      : v
  )

// A stage passes the same parameters object for every request: its canonical JSON is computed once.
const prefixes = new WeakMap<object, { readonly endpoint: string; readonly model: string; readonly json: string }>()
const prefixOf = (r: Omit<KeyedQuestion, "text">): string => {
  const params = r.params
  if (params === null || typeof params !== "object") return canonicalJson([r.endpoint, r.model, params ?? null])
  const cached = prefixes.get(params)
  if (cached !== undefined && cached.endpoint === r.endpoint && cached.model === r.model) return cached.json
  const json = canonicalJson([r.endpoint, r.model, params])
  // Requests are plain data: parameters are never mutated once a request is made.
  prefixes.set(params, { endpoint: r.endpoint, model: r.model, json })
  return json
}

/**
 * SHA-256 of parts joined by NUL, base64url. Short inputs (every request's, nearly) go through the
 * one-shot `hash` (no Hash object per key: a warm rerun makes two keys a record); long ones stream.
 */
export const sha256Key = (a: string, b: string): string =>
  a.length + b.length < 1 << 20
    ? hash("sha256", `${a}\u0000${b}`, "base64url")
    : createHash("sha256").update(a).update("\u0000").update(b).digest("base64url")

export const contentKey = (r: KeyedQuestion): string => sha256Key(prefixOf(r), r.text)
