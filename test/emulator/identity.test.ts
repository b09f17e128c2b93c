/** The emulator's `x-svc-emulator` header: on every answer of an identifying emulator, checked by the client. */
import { describe, expect, it } from "@effect/vitest"
import { answerFingerprint, emulatorOrigin, fingerprintOf } from "../../src/emulator/identity.ts"
import { emulatorFor, KEY, post } from "../helpers.ts"

describe("x-svc-emulator", () => {
  it("is on every answer of an identifying emulator (200, 401, 404), valued with its answer knobs", async () => {
    const emu = await emulatorFor({ identify: true, nonconformingRate: 0.25, error500Rate: 0 })
    try {
      const ok = await post(emu, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" })
      const denied = await post(emu, "/v1/translate", {}, "Bearer wrong")
      const probe = await fetch(`${emu.url}/v1/chat/completions`)
      for (const r of [ok.status, denied.status, probe.status]) expect([200, 401, 404]).toContain(r)
      for (const headers of [ok.headers, denied.headers, probe.headers])
        expect(headers.get("x-svc-emulator")).toBe("nonconforming-rate=0.25")
    } finally {
      await emu.close()
    }
  })

  it("is absent from an emulator standing in for the service (tests, drills)", async () => {
    const emu = await emulatorFor({})
    try {
      expect(
        (
          await post(emu, "/v1/translate", { text: "hi", source_lang: "en", target_lang: "ja" }, `Bearer ${KEY}`)
        ).headers.get("x-svc-emulator")
      ).toBeNull()
    } finally {
      await emu.close()
    }
  })

  it("keys the default knobs as the embedded emulator always was, others apart; refuses what is not a fingerprint", () => {
    expect(emulatorOrigin(answerFingerprint({ error503Rate: 0.5, faultSeed: 3, latencyMs: 20 }))).toBe("emulator")
    expect(emulatorOrigin(answerFingerprint({ nonconformingRate: 0.1 }))).toBe("emulator (nonconforming-rate=0.1)")
    expect(fingerprintOf(" nonconforming-rate=0 ")).toBe("nonconforming-rate=0")
    for (const junk of [null, "", "yes", "<script>", `nonconforming-rate=${"9".repeat(300)}`])
      expect(fingerprintOf(junk)).toBeUndefined()
  })
})
