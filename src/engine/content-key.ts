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

export const contentKey = (r: Pick<StageRequest, "endpoint" | "model" | "params" | "text">): string =>
  createHash("sha256").update(canonicalJson([r.endpoint, r.model, r.params ?? null])).update("\u0000").update(r.text).digest("base64url")
