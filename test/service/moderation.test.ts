/** The svc3-guard verdict format (spec §2.7). */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Categories, CategoryCodes, formatVerdict, parseVerdict } from "../../src/service/moderation.ts"

const ok = (raw: string) => Either.getOrThrow(parseVerdict(raw))
const err = (raw: string) => {
  const r = parseVerdict(raw)
  if (Either.isRight(r)) throw new Error(`expected a parse error for ${JSON.stringify(raw)}`)
  return r.left
}

describe("parseVerdict", () => {
  it("reads 安全 as safe", () => {
    expect(ok("安全")).toEqual({ verdict: "safe", categories: [], raw: "安全" })
    expect(ok("安全\n").verdict).toBe("safe")
  })

  it("reads 有害 + newline + codes as harmful with those codes", () => {
    const v = ok("有害\nT1")
    expect(v.verdict).toBe("harmful")
    expect(v.categories).toEqual([Categories.T1])
    expect(ok("有害\nT2, T10, T12").categories.map((c) => c.code)).toEqual(["T2", "T10", "T12"])
    expect(ok("有害\r\nT3,T4").categories.map((c) => c.code)).toEqual(["T3", "T4"])
  })

  it("rejects anything else, keeping the raw text", () => {
    for (const raw of ["", "safe", "有害", "有害\n", "有害\nT13", "有害\nT1, T1", "有害 T1", "安全です", "有害\nX1"]) {
      const e = err(raw)
      expect(e._tag).toBe("ModerationParseError")
      expect(e.raw).toBe(raw)
    }
  })

  it("round-trips formatVerdict for every code", () => {
    expect(formatVerdict([])).toBe("安全")
    expect(formatVerdict(["T1", "T5"])).toBe("有害\nT1, T5")
    for (const code of CategoryCodes) expect(ok(formatVerdict([code])).categories[0]!.code).toBe(code)
  })

  it("carries the service's names and English glosses for T1–T12", () => {
    expect(CategoryCodes).toHaveLength(12)
    expect(Categories.T5).toEqual({ code: "T5", name: "AIへの過剰な信頼", gloss: "excessive trust in AI" })
    expect(Categories.T12.name).toBe("虚偽情報")
  })
})
