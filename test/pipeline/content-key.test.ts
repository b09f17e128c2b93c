/** Content keys are what stored answers are found by: the one-shot hash must give the keys ledgers already hold. */
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { contentKey } from "../../src/pipeline/content-key.ts"
import { originKey } from "../../src/engine/records/answer-cache.ts"

/** The definition the ledgers were written with: SHA-256 over the parts joined by NUL, streamed. */
const streamed = (a: string, b: string) => createHash("sha256").update(a).update("\u0000").update(b).digest("base64url")

describe("content keys", () => {
  it("are SHA-256 of the canonical parameters and the text, as stored ledgers have them (short, non-ASCII and over-1-MiB texts)", () => {
    for (const text of ["", "hello", "日本語のテキスト 🌸", "x".repeat((1 << 20) + 5)]) {
      const r = { endpoint: "chat" as const, model: "svc3-guard", params: { b: 2, a: [1, { d: 1, c: 2 }] }, text }
      expect(contentKey(r)).toBe(streamed('["chat","svc3-guard",{"a":[1,{"c":2,"d":1}],"b":2}]', text))
    }
  })

  it("bind an answer to its origin the same way", () => {
    expect(originKey("http://127.0.0.1:8080", "k1")).toBe(streamed("http://127.0.0.1:8080", "k1"))
    expect(originKey(undefined, "k1")).toBe("k1")
  })
})
