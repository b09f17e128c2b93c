/** The emulator's knobs, declared once: flags, job section and defaults all come from one table. */
import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { decodeKnobs, knobs, knobValue } from "../../src/emulator/knobs.ts"
import { spawnCli } from "../cli/spawn-cli.ts"

describe("emulator knobs", () => {
  it("gives every knob a flag of svc-batch emulator, with its description", async () => {
    const p = spawnCli(["emulator", "--help"])
    expect(await p.exited).toBe(0)
    // Help wraps long descriptions: compare with the line breaks and indentation folded to spaces.
    const help = p.out().replace(/\s+/g, " ")
    for (const k of Object.values(knobs)) {
      expect(help).toContain(`--${k.flag}`)
      expect(help).toContain(k.description)
    }
  })

  it("rejects an out-of-range flag with exit code 2, naming the flag", async () => {
    const p = spawnCli(["emulator", "--port", "0", "--error-500-rate", "2"])
    expect(await p.exited).toBe(2)
    expect(p.err()).toMatch(/--error-500-rate: .*between 0 and 1/)
  })

  it("checks a job's emulator section against the same Schema", () => {
    expect(Either.isRight(decodeKnobs({ latencyMs: 20, rpm: { "svc3-guard": 600 } }, (k) => k))).toBe(true)
    expect(Either.getLeft(decodeKnobs({ slowRate: -1 }, (k) => `emulator.${k}`))).toEqual(
      Option.some(expect.stringMatching(/^emulator\.slowRate: /))
    )
    expect(Either.getLeft(decodeKnobs({ latency: 5 }, (k) => k))).toEqual(
      Option.some(expect.stringContaining("latency"))
    )
  })

  it("applies each knob's default where it has one", () => {
    expect(knobValue({}, "slowMs")).toBe(5000)
    expect(knobValue({}, "faultSeed")).toBe(1)
    expect(knobValue({ slowMs: 10 }, "slowMs")).toBe(10)
    expect(knobValue({}, "burst")).toBeUndefined()
    expect(knobValue({}, "nonconformingRate")).toBe(0)
  })
})
