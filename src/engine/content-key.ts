/** Content key of a request: the same endpoint, model, parameters and text are the same question. */
import { createHash } from "node:crypto"
import type { StageRequest } from "./stage.ts"

/** JSON with object keys sorted, so parameter order never changes a key. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

// A stage passes the same parameters object for every request: its canonical JSON is computed once.
const prefixes = new WeakMap<object, { readonly endpoint: string; readonly model: string; readonly json: string }>()
const prefixOf = (r: Pick<StageRequest, "endpoint" | "model" | "params">): string => {
  const params = r.params
  if (params === null || typeof params !== "object") return canonicalJson([r.endpoint, r.model, params ?? null])
  const cached = prefixes.get(params)
  if (cached !== undefined && cached.endpoint === r.endpoint && cached.model === r.model) return cached.json
  const json = canonicalJson([r.endpoint, r.model, params])
  // Requests are plain data: parameters are never mutated once a request is made.
  prefixes.set(params, { endpoint: r.endpoint, model: r.model, json })
  return json
}

export const contentKey = (r: Pick<StageRequest, "endpoint" | "model" | "params" | "text">): string =>
  createHash("sha256").update(prefixOf(r)).update("\u0000").update(r.text).digest("base64url")
