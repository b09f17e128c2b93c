import { describe, expect, it } from "@effect/vitest"
import { thousands } from "../../src/engine/thousands.ts"

describe("thousands", () => {
  it("groups the digits of a count as en-US does", () => {
    for (const n of [0, 7, 999, 1000, 12345, 999999, 1000000, 1234567890, -4321, Number.MAX_SAFE_INTEGER]) {
      expect(thousands(n)).toBe(n.toLocaleString("en-US"))
    }
  })

  it("leaves a fraction to toLocaleString", () => {
    expect(thousands(1234.5)).toBe("1,234.5")
  })
})
